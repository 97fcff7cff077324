"""What rules need beyond the records: the reference date and the configured settings."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from .severities import (
    DEFAULT_OVERDUE_DAYS,
    DEFAULT_RESTORE_VERIFY_DAYS,
    DEFAULT_UNMEASURED_VALUE_DAYS,
    Config,
)


@dataclass(frozen=True, slots=True)
class RuleSettings:
    today: date
    overdue_days: int = DEFAULT_OVERDUE_DAYS
    min_gain_pct: float = 0.0
    restore_verify_days: int = DEFAULT_RESTORE_VERIFY_DAYS
    unmeasured_value_days: int = DEFAULT_UNMEASURED_VALUE_DAYS

    @classmethod
    def of(cls, today: date, config: Config) -> RuleSettings:
        """The settings `config` gives, counting from `today`: the one way they are made."""
        return cls(today, config.revert_overdue_days, config.min_gain_pct, config.restore_verify_days,
                   config.unmeasured_value_days)
