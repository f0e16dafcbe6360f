"""The registry: every profile and every rule a run can use, built once and passed in.

Built from the built-in profiles' specs (import-free) and the ``pytest_handoff.profiles``
entry points; a profile's code is imported when it is first asked for. Nothing registers
anything on import: a rule exists because a profile's table (or the core table) lists it,
so ``explain NR301`` answers the same in any process.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pytest_handoff.profiles.builtin import BUILTIN_SPECS
from pytest_handoff.rules.selection import is_enabled
from pytest_handoff.values.groups import UNCLAIMED
from pytest_handoff.values.options import Option, any_value
from pytest_handoff.values.specs import ProfileSpec, configured_globs
from pytest_handoff.version import rule_page

if TYPE_CHECKING:
    from pytest_handoff.profiles.base import Profile
    from pytest_handoff.values.rules import Rule
    from pytest_handoff.values.settings import Settings


class RuleSet(NamedTuple):
    """The rules that apply to one profile's groups: the core table and the profile's own."""

    by_code: Mapping[str, Rule]
    #: Rules run on each schema-valid document, and rules run once per group.
    document: tuple[Rule, ...]
    group: tuple[Rule, ...]


class Registry:
    """The profiles (built-in first, then plugins) and their rule tables, loaded on first need.

    ``extra`` adds profiles as if an entry point announced them (a project's own, a test's);
    ``entry_points=False`` reads none (a run that must not import other packages' code).
    """

    def __init__(
        self,
        specs: Sequence[ProfileSpec] | None = None,
        *,
        extra: Sequence[Profile] = (),
        entry_points: bool = True,
    ) -> None:
        self.specs: Mapping[str, ProfileSpec] = {
            spec.name: spec for spec in (BUILTIN_SPECS if specs is None else specs)
        }
        self._extra = tuple(extra)
        self._entry_points = entry_points
        self._loaded: dict[str, Profile] = {}
        self._plugins: tuple[Profile, ...] | None = None
        self._rules: dict[str, RuleSet] = {}
        self._checked: set[tuple[str, str]] = set()
        self._enabled: dict[
            tuple[str, tuple[str, ...], tuple[str, ...]], tuple[tuple[Rule, ...], tuple[Rule, ...]]
        ] = {}

    # --- profiles ----------------------------------------------------------------------

    def profile(self, name: str) -> Profile:
        """The profile called ``name``, imported on first use (KeyError when there is none)."""
        found = self._loaded.get(name)
        if found is not None:
            return found
        spec = self.specs.get(name)
        if name == UNCLAIMED:  # not a format: made here, knowing which formats there are
            from pytest_handoff.profiles.unclaimed import UnclaimedProfile

            found = UnclaimedProfile(self.names())
        elif spec is None:
            found = next((p for p in self.plugins() if p.name == name), None)
            if found is None:
                raise KeyError(name)
        else:
            from importlib import import_module

            found = import_module(spec.module).PROFILE
        self._loaded[name] = found
        return found

    def builtin_names(self) -> tuple[str, ...]:
        return tuple(self.specs)

    def builtin_specs(self) -> tuple[ProfileSpec, ...]:
        return tuple(self.specs.values())

    def names(self) -> tuple[str, ...]:
        """Every profile's name, built-ins first (reads the entry points, imports no built-in)."""
        return (*self.specs, *(p.name for p in self.plugins()))

    def builtin_profiles(self) -> tuple[Profile, ...]:
        """Every built-in profile (imports them all: for listings, not the hot path)."""
        return tuple(self.profile(name) for name in self.specs)

    def all_profiles(self) -> tuple[Profile, ...]:
        return self.builtin_profiles() + self.plugins()

    def plugins(self) -> tuple[Profile, ...]:
        """Profiles of other packages (entry point group ``pytest_handoff.profiles``), read once.

        An entry point may name a :class:`Profile` subclass or an instance. A broken one is
        skipped with a warning naming it: it must not stop the checks of every other format.
        """
        if self._plugins is None:
            for profile in self._extra:
                _take_settings(profile)
            self._plugins = self._extra + (_entry_point_profiles() if self._entry_points else ())
        return self._plugins

    def spec_of(self, name: str) -> ProfileSpec | None:
        """The spec of profile ``name``: a built-in's own, or one made from a plugin's attributes."""
        spec = self.specs.get(name)
        if spec is not None:
            return spec
        plugin = next((p for p in self.plugins() if p.name == name), None)
        return None if plugin is None else plugin_spec(plugin)

    def read_own_options(self, name: str, table: Mapping[str, Any], where: str, base: Path) -> dict[str, Any]:
        """A table of a profile that reads its own options (user contracts), as plain data."""
        return self.profile(name).read_options(table, where, base)

    def project_markers(self) -> tuple[str, ...]:
        """Folders whose presence marks a project's root, of every built-in profile."""
        return tuple(marker for spec in self.specs.values() for marker in spec.markers)

    def checked_options(self, profile: Profile, settings: Settings) -> None:
        """Let a profile that reads its own tables refuse their values (ConfigError), once per settings.

        Done when the profile is first used rather than when the configuration is read: its
        checks read files (a contract's schemas), which a run checking none of its files skips.
        """
        options = settings.options_of(profile.name)
        if not options:
            return
        key = (profile.name, repr(sorted(options.items(), key=lambda item: item[0])))
        if key not in self._checked:
            profile.check_options(dict(options), f"[tool.handoff.{profile.name}]")
            self._checked.add(key)

    def globs(self, name: str, settings: Settings) -> tuple[str, ...]:
        """Where the profile ``name`` looks for its files under ``settings`` (no import when built in).

        A profile whose options are tables of its own (user contracts, each with its globs) is
        asked itself, and only when such tables are configured.
        """
        spec = self.specs.get(name)
        if spec is None:
            return self.profile(name).globs(settings)
        if spec.options is None:
            if settings.options_of(name):
                return self.profile(name).globs(settings)
            return ()
        return configured_globs(settings, name, spec.default_globs)

    def all_globs(self, settings: Settings) -> list[str]:
        """The globs of every built-in profile (for messages that say where handoffs are looked for)."""
        return [glob for name in self.specs for glob in self.globs(name, settings)]

    # --- rules -------------------------------------------------------------------------

    def rules_of(self, name: str) -> RuleSet:
        """The core rules and the rules of profile ``name``, by code and by scope."""
        found = self._rules.get(name)
        if found is None:
            table = (*_core_rules(), *self.profile(name).rule_table())
            found = self._rules[name] = RuleSet(
                {rule.code: rule for rule in table},
                tuple(r for r in table if r.scope == "document" and r.check is not None),
                tuple(r for r in table if r.scope == "chain" and r.check is not None),
            )
        return found

    def enabled_rules(self, name: str, settings: Settings) -> tuple[tuple[Rule, ...], tuple[Rule, ...]]:
        """The document and group rules of profile ``name`` that run under ``settings``' select/ignore."""
        key = (name, settings.select, settings.ignore)
        found = self._enabled.get(key)
        if found is None:
            rules = self.rules_of(name)
            found = self._enabled[key] = (
                tuple(rule for rule in rules.document if is_enabled(rule.code, settings)),
                tuple(rule for rule in rules.group if is_enabled(rule.code, settings)),
            )
        return found

    def rule(self, code: str) -> Rule | None:
        """The rule ``code`` of any profile (loads only the profile its prefix names, if one does)."""
        code = code.upper()
        core = next((rule for rule in (*_core_rules(), _user_rule()) if rule.code == code), None)
        if core is not None:
            return core
        owners = [
            spec.name
            for spec in self.specs.values()
            if spec.code_prefix and code.startswith(spec.code_prefix)
        ]
        for name in owners or self.names():
            found = self.rules_of(name).by_code.get(code)
            if found is not None:
                return found
        return None

    def modes_of(self, code: str) -> tuple[str, ...]:
        """The failure modes the rule of ``code`` declares its findings evidence of (none when unknown)."""
        rule = self.rule(code)
        return rule.modes if rule is not None else ()

    def page_of(self, code: str) -> str:
        """The address of rule ``code``'s page on the documentation site, or "" for a code that has none.

        Every rule of the core table and of the built-in formats has a page (``docs/rules/``, generated
        from these tables); ``USER`` and a plugin's rules do not.
        """
        rule = self.rule(code)
        if rule is None or rule is _user_rule():
            return ""
        builtin = rule.profile is None or any(spec.name == rule.profile for spec in BUILTIN_SPECS)
        return rule_page(rule.code) if builtin else ""

    def all_rules(self) -> dict[str, Rule]:
        """Every rule of every profile and the core's, by code (sorted); ``USER``, a project's own
        hook's code, is not a rule of ours (:meth:`rule` knows it)."""
        rules: dict[str, Rule] = {rule.code: rule for rule in _core_rules()}
        for profile in self.all_profiles():
            for rule in profile.rule_table():
                rules.setdefault(rule.code, rule)
        return dict(sorted(rules.items()))

    def known_codes(self, patterns: Iterable[str] | None = None) -> list[str]:
        """Every rule code (and ``USER``) of the profiles ``patterns`` can name.

        Without ``patterns``, of every profile. With them, only the profiles whose code prefix a
        pattern starts with are loaded (a pre-commit run that ignores NR205 imports no other format).
        """
        wanted = (
            None
            if patterns is None
            else [p.upper() for p in patterns if not p.upper().startswith(("H", "USER"))]
        )

        def names(pattern: str, prefix: str) -> bool:
            return pattern.startswith(prefix) or prefix.startswith(pattern)

        specs = self.specs.values()
        if wanted is None or any(
            p == "ALL" or not any(names(p, s.code_prefix) for s in specs) for p in wanted
        ):
            # A plugin's code, a typo, or everything: every profile has its say.
            return [*self.all_rules(), _user_rule().code]
        codes = [rule.code for rule in _core_rules()]
        for spec in specs:
            if any(names(p, spec.code_prefix) for p in wanted):
                codes.extend(rule.code for rule in self.profile(spec.name).rule_table())
        return [*codes, _user_rule().code]


# The core table is read when rules are first asked for: a hook deciding that a written file is
# no handoff at all pays for none of it (HX001's patterns compile when it loads).
def _core_rules() -> tuple[Rule, ...]:
    from pytest_handoff.rules.core import CORE_RULES

    return CORE_RULES


def _user_rule() -> Rule:
    from pytest_handoff.rules.core import USER_RULE

    return USER_RULE


def _entry_point_profiles() -> tuple[Profile, ...]:
    # Only now: reading entry points (and the base class, and its readers) costs start-up time.
    from importlib.metadata import entry_points

    from pytest_handoff.profiles.base import Profile

    found: list[Profile] = []
    for entry in entry_points(group="pytest_handoff.profiles"):
        try:
            loaded: Any = entry.load()
            profile = loaded() if isinstance(loaded, type) else loaded
            if not isinstance(profile, Profile):
                raise TypeError(f"{entry.value} is not a pytest_handoff Profile")
            _take_settings(profile)
            profile.rule_table()  # a table that cannot be built breaks the plugin, not the run
        except Exception as error:
            dist = getattr(entry, "dist", None)
            owner = f" of {dist.name}" if dist is not None else ""
            print(
                f"handoff-lint: warning: profile plugin {entry.name!r}{owner} skipped: "
                f"{type(error).__name__}: {error}",
                file=sys.stderr,
            )
            continue
        found.append(profile)
    return tuple(found)


def plugin_spec(profile: Profile) -> ProfileSpec:
    """The spec of a plugin's profile, from its attributes (``option_keys`` name its keys)."""
    keys = profile.option_keys
    options: tuple[Option, ...] | None = None
    if keys is not None:
        options = tuple(Option(key, any_value, None, "") for key in keys if key != "globs")
    return ProfileSpec(profile.name, type(profile).__module__, profile.default_globs, options)


def _take_settings(profile: Profile) -> None:
    """Let a plugin's ``claims``/``group_of``/``members`` written without a ``settings`` argument be
    called with one (they were, before profiles were given the settings)."""
    import inspect

    for name, wanted in (("claims", 2), ("group_of", 2), ("members", 4)):
        method = getattr(profile, name)
        parameters = inspect.signature(method).parameters.values()
        if any(p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) for p in parameters) or len(parameters) >= wanted:
            continue
        count = len(parameters)

        def without_settings(*args: Any, _method: Any = method, _count: int = count, **_: Any) -> Any:
            return _method(*args[:_count])

        setattr(profile, name, without_settings)


@cache
def default_registry() -> Registry:
    """The registry of this process: the built-in profiles and the installed plugins.

    Entry points build it once and pass it down; functions that take a registry use this one
    when given none.
    """
    return Registry()
