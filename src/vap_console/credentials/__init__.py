"""Profiles (a config file with no secrets), API keys (the OS keyring) and the local id index."""

from vap_console.credentials.index import KINDS, LocalIndex
from vap_console.credentials.keystore import (
    ENV_BASE_URL,
    ENV_BASE_URL_FALLBACK,
    ENV_KEY,
    ENV_KEY_FALLBACK,
    SERVICE,
    KeyringUnavailable,
    KeySource,
    KeyStore,
    ResolvedCredentials,
    check_api_key,
    env_api_key,
    env_base_url,
    mask,
)
from vap_console.credentials.names import (
    DEFAULT_BASE_URL,
    DEFAULT_PROFILE,
    CredentialsInputError,
    check_base_url,
    check_profile_name,
    key_host_warning,
)
from vap_console.credentials.profiles import (
    Profile,
    ProfilesConfig,
    ProfilesFileError,
    ProfileStore,
    UnknownProfile,
)

__all__ = [
    "DEFAULT_BASE_URL", "DEFAULT_PROFILE", "ENV_BASE_URL", "ENV_BASE_URL_FALLBACK", "ENV_KEY", "ENV_KEY_FALLBACK",
    "KINDS", "SERVICE",
    "CredentialsInputError", "KeySource", "KeyStore", "KeyringUnavailable", "LocalIndex",
    "Profile", "ProfileStore", "ProfilesConfig", "ProfilesFileError", "ResolvedCredentials",
    "UnknownProfile", "check_api_key", "check_base_url", "check_profile_name", "env_api_key", "env_base_url",
    "key_host_warning", "mask",
]
