"""One name per concept: `model=` in every app factory, server and CLI (`llm=` / `--llm`: deprecated aliases)."""

import warnings

import pytest
from typer.testing import CliRunner

from orrery.errors import ConfigError
from orrery.llm import ScriptedModel, model_argument


def test_an_app_factory_takes_model_and_warns_on_llm():
    from orrery.chat import chat_agent

    model = ScriptedModel(["hi"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # model= never warns
        assert chat_agent(model=model).model is model
    with pytest.warns(DeprecationWarning, match="pass model="):
        assert chat_agent(llm=model).run("q").output == "hi"
    with pytest.raises(ConfigError, match="model= only"), pytest.warns(DeprecationWarning):
        chat_agent(model=model, llm=model)


def test_the_registry_gives_the_factory_the_model():
    from orrery.apps import discover

    model = ScriptedModel(["42"])
    assert discover()["chat"].make_agent(model=model).run("6*7?").output == "42"


@pytest.mark.parametrize("module", ["orrery.serve.app", "orrery.mcp.server"])
def test_the_servers_settings_take_model_and_the_old_llm_keyword(module):
    import importlib

    settings = importlib.import_module(module).Settings
    model = ScriptedModel([])
    assert settings(model=model).model is model
    with pytest.warns(DeprecationWarning):
        assert settings(llm=model).model is model


def test_model_argument_is_the_model_when_llm_is_not_given():
    assert model_argument("local") == "local" and model_argument(None) is None


@pytest.mark.parametrize("command", [["chat"], ["run"], ["serve"], ["forecast"], ["demo"], ["markets", "ask"]])
def test_the_cli_says_model_and_keeps_llm_as_a_hidden_alias(command):
    from orrery.cli import app

    shown = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "200"})
    assert shown.exit_code == 0 and "--model" in shown.output and "--llm" not in shown.output
