"""The test runner's one build of the app's click command (tests/conftest.py): in effect, the same tree a fresh build
gives, and no state carried from one invocation to the next."""

import typer.main
import typer.testing
from typer.testing import CliRunner

from cli.main import app


def _tree(command) -> list:
    """Every command's path with its parameters' names, options and defaults."""
    out = [(command.name, [(p.name, tuple(getattr(p, "opts", ())), repr(p.default)) for p in command.params])]
    for name in sorted(getattr(command, "commands", {})):
        out += [(f"{command.name} {sub}", params) for sub, params in _tree(command.commands[name])]
    return out


def test_the_click_command_is_built_once_per_app_and_is_what_a_fresh_build_gives():
    cached = typer.testing._get_command(app)
    assert typer.testing._get_command(app) is cached
    fresh = typer.main.get_command(app)
    assert fresh is not cached
    assert _tree(fresh) == _tree(cached)


def test_an_invocation_answers_the_same_the_second_time():
    runner = CliRunner()
    for args in (["play", "paws", "--seed", "7"], ["play", "paws", "--seed", "no"], ["no-such-command"]):
        first, second = runner.invoke(app, args), runner.invoke(app, args)
        assert (first.exit_code, first.output) == (second.exit_code, second.output), args
        assert first.exit_code in (0, 2)
