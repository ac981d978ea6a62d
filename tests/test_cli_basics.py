"""What a user sees from the command line itself: help, unknown commands, bad settings."""

from __future__ import annotations


def test_unknown_command_is_one_line_with_a_suggestion(cli):
    r = cli("stauts")
    assert r.code == 2
    assert r.err.strip() == (
        "skillopt-sleep: error: unknown command 'stauts' (did you mean `status`? see `skillopt-sleep --help`)"
    )


def test_bad_config_value_names_the_env_var_to_fix(cli):
    r = cli("doctor", env={"SKILLOPT_SLEEP_NIGHT__K": "abc"})
    assert r.code == 3
    assert r.err.count("\n") == 1
    assert "night.k" in r.err and "fix or unset SKILLOPT_SLEEP_NIGHT__K" in r.err


def test_unknown_setting_in_user_file_suggests_the_right_key(cli, sandbox_home):
    cfg = sandbox_home / "sleep-home" / "config" / "config.toml"
    cfg.parent.mkdir(parents=True)
    cfg.write_text("[night]\nkk = 3\n")
    r = cli("doctor")
    assert r.code == 3
    assert "unknown setting night.kk" in r.err and "did you mean night.k?" in r.err


def test_unknown_backend_lists_the_choices(cli):
    import pytest

    from skillopt_sleep.backends.registry import backend_class
    from skillopt_sleep.errors import ConfigError

    with pytest.raises(ConfigError) as info:
        backend_class("antropic")
    assert "did you mean anthropic?" in info.value.one_line()
    assert "simulated" in info.value.one_line()


def test_bad_value_unknown_backend_and_unknown_command_have_distinct_exit_codes(cli):
    bad_value = cli("doctor", env={"SKILLOPT_SLEEP_NIGHT__K": "abc"})
    unknown_backend = cli("config", "show", "--backend", "antropic")
    unknown_command = cli("frobnicate")
    codes = [bad_value.code, unknown_backend.code, unknown_command.code]
    assert codes == [3, 11, 2]
    for r in (bad_value, unknown_backend, unknown_command):
        assert r.err.count("\n") == 1 and r.err.startswith("skillopt-sleep: error: ")
    assert "did you mean anthropic?" in unknown_backend.err
