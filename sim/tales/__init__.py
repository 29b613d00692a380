"""Tales are Real: Animalis vs. Schatten (rulebook ``shared/rules/tales-are-real.txt``).

rules.py (parameters, presets, setup) · cards.py + data/*.toml (card data) · kinds.py (enums) ·
state.py (game state) · setup.py · recruitment.py · equipment.py · battle.py · potions.py ·
damage.py · abilities.py · victory.py (one module per rulebook section) · game.py (round loop,
record) · bots/ · record.py (Arrow schemas) · plugin.py (the game as playtest's registry sees it) ·
sql/ (its canned queries and regression metrics).
"""
