//! Token zones: how full the agent's context window already is decides how much a session
//! context may add (BAZINGA's graduated zones, computed exactly in integers).
//!
//! | zone | share of the effective window used | what the document holds |
//! |---|---|---|
//! | Normal | below 60 % | packages with summaries, error patterns (confidence > 0.7), graph context |
//! | Soft Warning | 60 % to below 75 % | package summaries (shortened), graph context at summary detail |
//! | Conservative | 75 % to below 85 % | critical packages only |
//! | Wrap-up | 85 % to below 95 % | a minimal notice |
//! | Emergency | 95 % and above | a checkpoint notice |
//!
//! The effective window is the model's window less the safety margin (15 % by default).

use serde::Serialize;

/// A token zone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Zone {
    /// Under 60 % used: packages, error patterns and the graph context.
    Normal,
    /// 60–75 %: summaries, the graph context at summary detail.
    SoftWarning,
    /// 75–85 %: critical packages only.
    Conservative,
    /// 85–95 %: a minimal notice.
    WrapUp,
    /// 95 % and over: a checkpoint notice.
    Emergency,
}

impl Zone {
    /// The zone's display name.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Zone::Normal => "Normal",
            Zone::SoftWarning => "Soft Warning",
            Zone::Conservative => "Conservative",
            Zone::WrapUp => "Wrap-up",
            Zone::Emergency => "Emergency",
        }
    }
}

/// Where an agent stands in its window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// The model name the window came from (or `window` when given directly).
    pub model: String,
    /// The window in tokens.
    pub window: usize,
    /// `window` less the safety margin.
    pub effective: usize,
    /// Tokens already used.
    pub used_tokens: usize,
    /// Share of `effective` used, in tenths of a percent (rounded down).
    pub permille: u64,
    /// The zone that share falls in.
    pub zone: Zone,
}

/// Computes the usage for `used` tokens of a `window` with a margin in basis points.
pub(crate) fn usage(model: &str, window: usize, margin_bp: u64, used: usize) -> Usage {
    let effective = (window as u128 * (10_000 - margin_bp.min(10_000)) as u128 / 10_000) as usize;
    Usage {
        model: model.to_string(),
        window,
        effective,
        used_tokens: used,
        permille: if effective == 0 {
            1000
        } else {
            (used as u128 * 1000 / effective as u128).min(u64::MAX as u128) as u64
        },
        zone: zone_of(used, effective),
    }
}

/// The zone for `used` tokens of an `effective` window: boundaries at exactly 60, 75, 85 and
/// 95 % belong to the fuller zone.
pub(crate) fn zone_of(used: usize, effective: usize) -> Zone {
    let (u, e) = (used as u128 * 100, effective as u128);
    if u < 60 * e {
        Zone::Normal
    } else if u < 75 * e {
        Zone::SoftWarning
    } else if u < 85 * e {
        Zone::Conservative
    } else if u < 95 * e {
        Zone::WrapUp
    } else {
        Zone::Emergency
    }
}

impl Usage {
    /// Tokens still available in the effective window.
    pub(crate) fn remaining(&self) -> usize {
        self.effective.saturating_sub(self.used_tokens)
    }

    /// `12.3%`.
    pub(crate) fn percent(&self) -> String {
        format!("{}.{}%", self.permille / 10, self.permille % 10)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_boundary_belongs_to_the_fuller_zone() {
        // 200000 × 0.85 = 170000: 60 % = 102000, 75 % = 127500, 85 % = 144500, 95 % = 161500.
        let u = |used| usage("claude", 200_000, 1500, used);
        assert_eq!(u(0).effective, 170_000);
        assert_eq!(u(0).zone, Zone::Normal);
        assert_eq!(u(101_999).zone, Zone::Normal);
        assert_eq!(u(102_000).zone, Zone::SoftWarning);
        assert_eq!(u(127_499).zone, Zone::SoftWarning);
        assert_eq!(u(127_500).zone, Zone::Conservative);
        assert_eq!(u(144_499).zone, Zone::Conservative);
        assert_eq!(u(144_500).zone, Zone::WrapUp);
        assert_eq!(u(161_499).zone, Zone::WrapUp);
        assert_eq!(u(161_500).zone, Zone::Emergency);
        assert_eq!(u(900_000).zone, Zone::Emergency);
        assert_eq!(u(102_000).percent(), "60.0%");
        assert_eq!(u(161_499).percent(), "94.9%");
    }

    #[test]
    fn odd_windows_and_margins() {
        assert_eq!(zone_of(0, 0), Zone::Emergency);
        let u = usage("gpt-4", 8_192, 0, 4_915);
        assert_eq!((u.effective, u.zone), (8_192, Zone::Normal)); // 59.99 %
        assert_eq!(usage("gpt-4", 8_192, 0, 4_916).zone, Zone::SoftWarning);
        assert_eq!(usage("x", 1_000, 1500, 100).remaining(), 750);
    }
}
