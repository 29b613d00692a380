"""Tales are Real: Animalis vs. Schatten (rulebook ``shared/rules/tales-are-real.txt``)."""
