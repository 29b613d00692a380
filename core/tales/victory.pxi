# Victory and Defeat (sim/tales/victory.py): a fallen Champion ends the game at once (unless
# champion_death_ends = 0); Survive! ends when one player (survive_end = team: a whole team) has no
# creature left; otherwise, after the last round, the fewest weighted losses win.

cdef inline void finish(Game* g, int winner_team, int reason) noexcept nogil:
    g.over = 1
    g.winner_team = winner_team
    g.end_reason = reason if winner_team != NOBODY else R_DRAW


cdef void after_fight(Game* g) noexcept nogil:
    """Checked once the fight's destroyed creatures have left the field."""
    cdef int e0, e1
    if g.r.champion_death_ends and (g.champion_fell[0] or g.champion_fell[1]):
        finish(g, NOBODY if g.champion_fell[0] and g.champion_fell[1] else (1 if g.champion_fell[0] else 0),
               R_CHAMPION_KILLED)
    elif g.r.survive:
        # Survive!: "rounds are played until one player has no creatures left on the playing area"
        if g.r.survive_end == SURVIVE_END_PLAYER:
            e0 = a_seat_is_empty(g, 0)
            e1 = a_seat_is_empty(g, 1)
        else:
            e0 = on_field(g, 0) == 0
            e1 = on_field(g, 1) == 0
        if e0 or e1:
            finish(g, NOBODY if e0 and e1 else (1 if e0 else 0), R_LAST_STANDING)


cdef void by_losses(Game* g) noexcept nogil:
    """After the last round: the fewest weighted losses win; equal losses are a draw."""
    cdef int a = team_losses(g, 0), b = team_losses(g, 1)
    finish(g, NOBODY if a == b else (0 if a < b else 1), R_LOSSES)
