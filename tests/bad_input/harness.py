"""Shared check for the bad-input suites: a command-line program given bad input answers
with one line, ``error: ...`` naming the problem, exit status 2, and no traceback."""

from __future__ import annotations

from collections.abc import Callable, Sequence


def exit_status(main: Callable[[Sequence[str]], object], argv: Sequence[str]) -> int:
    """Run ``main(argv)`` in-process; its exit status (a returned int or ``SystemExit``)."""
    try:
        result = main(list(argv))
    except SystemExit as stop:
        code = stop.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    return result if isinstance(result, int) else 0


def assert_clean_error(
    main: Callable[[Sequence[str]], object],
    argv: Sequence[str],
    expected: str,
    capsys,
) -> str:
    """Assert that ``main(argv)`` fails cleanly: status 2, one ``error:`` line on stderr that
    contains ``expected`` (case-insensitive), no traceback. Returns that line."""
    capsys.readouterr()
    status = exit_status(main, argv)
    captured = capsys.readouterr()
    err = captured.err
    assert "Traceback" not in err + captured.out, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2, f"exit status {status} for {list(argv)}: {err}"
    assert len(lines) == 1, f"expected one error line for {list(argv)}, got: {err!r}"
    assert lines[0].startswith("error: "), lines[0]
    assert expected.lower() in lines[0].lower(), f"{expected!r} not in {lines[0]!r}"
    return lines[0]
