# What the scenario tests' module (core/tales_scenario.pyx) takes from the engine: its configuration, so
# that the struct it runs the rules on is filled exactly as the engine's is.
from core.tales_types cimport CreatureSpec, EquipSpec, Game

cdef _configure(Game* g, CreatureSpec* cspec, EquipSpec* espec, dict inputs)
