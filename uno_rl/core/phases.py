"""The phases of a turn. The same player may act in several phases in a row.

=====  ==========  ===============================================================
phase  name        who acts, and what they decide
=====  ==========  ===============================================================
0      play        the player whose turn it is: play a playable card or draw
1      drawn       the player who just drew a playable card: play it, or keep it (pass)
2      respond     the victim of a +2/+4: accept the draws, challenge a +4, stack a draw
                   card, or cancel with a Wild (whichever the rules allow)
3      target      (seven-zero) the player of a 7: choose whose hand to swap with
4      multi       (multi-play) the player who just played a number: add another card of
                   that number, or stop (pass)
5      color       the first player (or the dealer) names the color of a first-card Wild
6      jump        (jump-in) a player holding the card just played: play it out of turn, or pass
7      over        the round (or match) is over; nobody acts until the game is reset
=====  ==========  ===============================================================
"""

PLAY, DRAWN, RESPOND, TARGET, MULTI, COLOR, JUMP, OVER = range(8)
NUM_PHASES = 8
PHASE_NAMES = ("play", "drawn", "respond", "target", "multi", "color", "jump", "over")
