"""The compiled sampler draws what :func:`uno_rl.core.sampling.sample_legal_actions` draws."""

from __future__ import annotations

import numpy as np
import pytest

from uno_rl.core.compiled.nb_sampling import sample_legal_actions as compiled_sample
from uno_rl.core.sampling import sample_numpy as sample_legal_actions


@pytest.mark.parametrize("density", [0.02, 0.2, 0.9])
def test_same_actions_and_generator_state(density):
    rng = np.random.default_rng(7)
    mask = rng.random((300, 77)) < density
    mask[np.arange(300), rng.integers(0, 77, 300)] = True  # every game has an action
    one, two = np.random.default_rng(3), np.random.default_rng(3)
    for _ in range(3):
        assert (compiled_sample(mask, one) == sample_legal_actions(mask, two)).all()
    assert one.random() == two.random()


def test_no_legal_action_same_error_and_no_draw():
    mask = np.ones((4, 77), bool)
    mask[2] = False
    one, two = np.random.default_rng(3), np.random.default_rng(3)
    with pytest.raises(ValueError) as compiled_error:
        compiled_sample(mask, one)
    with pytest.raises(ValueError) as numpy_error:
        sample_legal_actions(mask, two)
    assert str(compiled_error.value) == str(numpy_error.value)
    assert one.random() == two.random()
