# What the scenario tests' module (core/tales_scenario.pyx) takes from the engine: its configuration, so
# that the struct it runs the rules on is filled exactly as the engine's is.
from core.tales_types cimport CreatureSpec, EquipSpec, Game

cdef _configure(Game* g, CreatureSpec* cspec, EquipSpec* espec, dict rules, int players, list people,
                list bots, list creatures, list equipment, list champions, list people_decks, list equipment_deck)
