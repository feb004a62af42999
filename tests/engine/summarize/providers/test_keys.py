"""A key stored in the OS keyring is read back where it was stored (by profile name)."""

from __future__ import annotations

import sys
import types
from typing import Any

import pytest

from fixtures.llm_wire import WireServer
from sessionlens.engine.errors import ConfigError
from sessionlens.engine.summarize.providers.base import ProviderProfile
from sessionlens.engine.summarize.providers.keys import (
    KEYRING_SERVICE,
    keyring_available,
    read_key,
    store_api_key,
)


class _FakeKeyring(types.ModuleType):
    """The two calls of the ``keyring`` package's API that SessionLens uses."""

    def __init__(self) -> None:
        super().__init__("keyring")
        self.store: dict[tuple[str, str], str] = {}

    def set_password(self, service: str, user: str, password: str) -> None:
        self.store[(service, user)] = password

    def get_password(self, service: str, user: str) -> str | None:
        return self.store.get((service, user))


@pytest.fixture
def fake_keyring(monkeypatch: pytest.MonkeyPatch) -> _FakeKeyring:
    kr = _FakeKeyring()
    monkeypatch.setitem(sys.modules, "keyring", kr)
    return kr


def test_a_stored_key_is_read_back_by_the_profile(fake_keyring: _FakeKeyring,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    assert keyring_available()
    store_api_key("work-openai", "sk-stored-in-the-keyring-000000000000")
    assert fake_keyring.store[(KEYRING_SERVICE, "work-openai")].startswith("sk-stored")
    profile = ProviderProfile(name="work-openai", kind="openai", key_env=None)
    assert profile.read_key() == "sk-stored-in-the-keyring-000000000000"
    # the environment variable, when set, wins; unset, the keyring answers again
    env_profile = ProviderProfile(name="work-openai", kind="openai", key_env="SL_TEST_KEY")
    monkeypatch.setenv("SL_TEST_KEY", "sk-from-env")
    assert env_profile.read_key() == "sk-from-env"
    monkeypatch.delenv("SL_TEST_KEY")
    assert env_profile.read_key() == "sk-stored-in-the-keyring-000000000000"
    assert ProviderProfile(name="other", kind="openai").read_key() is None


def test_a_broken_keyring_backend_means_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    broken: Any = types.ModuleType("keyring")

    def fail(*_a: object) -> str:
        raise RuntimeError("no backend")

    broken.get_password = fail
    monkeypatch.setitem(sys.modules, "keyring", broken)
    assert read_key("p", None) is None


def test_without_the_keyring_package_storing_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "keyring", None)  # import keyring -> ImportError
    assert not keyring_available() and read_key("p", None) is None
    with pytest.raises(ConfigError, match="keyring"):
        store_api_key("p", "k")


@pytest.mark.asyncio
async def test_the_openai_provider_sends_the_keyring_key(fake_keyring: _FakeKeyring,
                                                         wire: WireServer) -> None:
    """End to end against the local Chat Completions server: the header carries the key the
    app stored in the keyring (it used to be dropped: only the environment was read)."""
    from fixtures.llm_wire import Act, request
    from sessionlens.engine.summarize.providers import build_provider

    store_api_key("kr-profile", "sk-kr-0123456789abcdef0123456789")
    wire.acts.append(Act("stream", text="## Goal\n- ok", usage=(10, 3)))
    provider = build_provider(ProviderProfile(
        name="kr-profile", kind="openai", base_url=wire.url + "/v1", model="m", timeout_s=5))
    await provider.complete(request())
    assert wire.seen[-1].headers["authorization"] == "Bearer sk-kr-0123456789abcdef0123456789"
