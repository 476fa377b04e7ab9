import re

import uno_rl


def test_version_is_semver():
    assert re.fullmatch(r"\d+\.\d+\.\d+", uno_rl.__version__)
