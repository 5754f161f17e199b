//! Protocol revisions as an enumerated set, the two eras, and version negotiation.
//!
//! Revisions are never compared as strings: `"2025-11-25" > "2025-06-18"` happens to hold
//! lexicographically, but revision order is a property of the set, not of the spelling.
//! The derived `Ord` follows declaration order, which is publication order.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One published revision of the Model Context Protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ProtocolVersion {
    /// `2024-11-05`: the baseline; HTTP+SSE transport.
    V2024_11_05,
    /// `2025-03-26`: Streamable HTTP, batches, tool annotations, audio.
    V2025_03_26,
    /// `2025-06-18`: structured output, elicitation, titles; batches removed.
    V2025_06_18,
    /// `2025-11-25`: icons, URL elicitation, sampling tools, experimental tasks.
    V2025_11_25,
    /// `2026-07-28`: the modern, stateless era (`server/discover`, per-request `_meta`).
    V2026_07_28,
}

/// The two eras of the protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// Revisions with the `initialize` handshake (2024-11-05 … 2025-11-25).
    Legacy,
    /// Revisions with per-request `_meta` envelopes (2026-07-28 and later).
    Modern,
}

impl ProtocolVersion {
    /// Every revision, oldest first.
    pub const ALL: [ProtocolVersion; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];
    /// The newest revision.
    pub const LATEST: ProtocolVersion = Self::V2026_07_28;
    /// The newest revision that has the `initialize` handshake.
    pub const LATEST_HANDSHAKE: ProtocolVersion = Self::V2025_11_25;

    /// The revision's wire spelling, e.g. `"2025-06-18"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Parses a wire spelling; `None` for anything that is not a known revision.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == s)
    }

    /// The era this revision belongs to.
    pub const fn era(self) -> Era {
        match self {
            Self::V2026_07_28 => Era::Modern,
            _ => Era::Legacy,
        }
    }

    /// Whether this revision is at least `other` in publication order.
    pub fn at_least(self, other: ProtocolVersion) -> bool {
        self >= other
    }

    /// Whether incoming JSON-RPC batches (arrays) must be accepted (2025-03-26 only).
    pub const fn allows_batches(self) -> bool {
        matches!(self, Self::V2025_03_26)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing a string that names no known revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownVersion(pub String);

impl fmt::Display for UnknownVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown MCP protocol version {:?}", self.0)
    }
}

impl std::error::Error for UnknownVersion {}

impl FromStr for ProtocolVersion {
    type Err = UnknownVersion;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownVersion(s.to_owned()))
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Self::parse(&s).ok_or_else(|| serde::de::Error::custom(UnknownVersion(s.into_owned())))
    }
}

/// The set of revisions a server (or client) is willing to speak.
///
/// It narrows both `initialize` negotiation and the `supportedVersions` of `server/discover`.
///
/// ```
/// use mcp_core::version::{ProtocolVersion as V, SupportedVersions};
///
/// let all = SupportedVersions::all();
/// assert_eq!(all.negotiate_initialize("2025-06-18"), Some(V::V2025_06_18));
/// // An unknown request gets the latest handshake revision, never 2026-07-28.
/// assert_eq!(all.negotiate_initialize("2099-01-01"), Some(V::V2025_11_25));
/// assert_eq!(all.negotiate_initialize("2026-07-28"), Some(V::V2025_11_25));
///
/// let modern_only = SupportedVersions::only(&[V::V2026_07_28]);
/// assert_eq!(modern_only.negotiate_initialize("2025-06-18"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SupportedVersions {
    bits: u8,
}

impl Default for SupportedVersions {
    fn default() -> Self {
        Self::all()
    }
}

impl SupportedVersions {
    /// Every known revision.
    pub const fn all() -> Self {
        Self { bits: 0b1_1111 }
    }

    /// Exactly the given revisions.
    pub fn only(versions: &[ProtocolVersion]) -> Self {
        let mut s = Self { bits: 0 };
        for v in versions {
            s.bits |= 1 << (*v as u8);
        }
        s
    }

    /// Whether `v` is in the set.
    pub const fn contains(self, v: ProtocolVersion) -> bool {
        self.bits & (1 << (v as u8)) != 0
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.bits == 0
    }

    /// The revisions in the set, oldest first.
    pub fn iter(self) -> impl Iterator<Item = ProtocolVersion> {
        ProtocolVersion::ALL
            .into_iter()
            .filter(move |v| self.contains(*v))
    }

    /// The handshake (legacy) revisions in the set, oldest first.
    pub fn handshake(self) -> impl Iterator<Item = ProtocolVersion> {
        self.iter().filter(|v| v.era() == Era::Legacy)
    }

    /// The modern revisions in the set, oldest first: what `server/discover` advertises.
    pub fn modern(self) -> impl Iterator<Item = ProtocolVersion> {
        self.iter().filter(|v| v.era() == Era::Modern)
    }

    /// Whether any legacy revision is served (so `initialize` is answered at all).
    pub fn serves_legacy(self) -> bool {
        self.handshake().next().is_some()
    }

    /// Whether any modern revision is served.
    pub fn serves_modern(self) -> bool {
        self.modern().next().is_some()
    }

    /// The `initialize` rule: echo the requested revision when it is a supported handshake
    /// revision, otherwise answer the newest supported handshake revision. `None` when no
    /// handshake revision is supported (a modern-only server answers -32022 instead).
    pub fn negotiate_initialize(self, requested: &str) -> Option<ProtocolVersion> {
        match ProtocolVersion::parse(requested) {
            Some(v) if v.era() == Era::Legacy && self.contains(v) => Some(v),
            _ => self.handshake().last(),
        }
    }

    /// Every revision in the set as wire strings, oldest first.
    pub fn strings(self) -> Vec<&'static str> {
        self.iter().map(ProtocolVersion::as_str).collect()
    }
}

impl FromIterator<ProtocolVersion> for SupportedVersions {
    fn from_iter<I: IntoIterator<Item = ProtocolVersion>>(iter: I) -> Self {
        let v: Vec<_> = iter.into_iter().collect();
        Self::only(&v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_spelling() {
        for v in ProtocolVersion::ALL {
            assert_eq!(ProtocolVersion::parse(v.as_str()), Some(v));
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(serde_json::from_str::<ProtocolVersion>(&json).unwrap(), v);
        }
        assert_eq!(ProtocolVersion::parse("2025-06-19"), None);
        assert_eq!(ProtocolVersion::parse(" 2025-06-18"), None);
        assert!(serde_json::from_str::<ProtocolVersion>("\"2025-01-01\"").is_err());
    }

    #[test]
    fn eras() {
        for v in ProtocolVersion::ALL {
            let want = if v == ProtocolVersion::V2026_07_28 {
                Era::Modern
            } else {
                Era::Legacy
            };
            assert_eq!(v.era(), want, "{v}");
        }
        assert!(ProtocolVersion::V2025_03_26.allows_batches());
        assert!(!ProtocolVersion::V2025_06_18.allows_batches());
        assert!(!ProtocolVersion::V2024_11_05.allows_batches());
    }

    #[test]
    fn negotiation_echoes_supported_and_never_picks_modern() {
        let all = SupportedVersions::all();
        for v in ProtocolVersion::ALL {
            let got = all.negotiate_initialize(v.as_str()).unwrap();
            if v.era() == Era::Legacy {
                assert_eq!(got, v);
            } else {
                assert_eq!(got, ProtocolVersion::V2025_11_25);
            }
        }
        assert_eq!(
            all.negotiate_initialize(""),
            Some(ProtocolVersion::V2025_11_25)
        );
    }

    #[test]
    fn narrowed_set_narrows_negotiation_and_discovery() {
        use ProtocolVersion as V;
        let s = SupportedVersions::only(&[V::V2024_11_05, V::V2025_03_26]);
        assert_eq!(s.negotiate_initialize("2025-11-25"), Some(V::V2025_03_26));
        assert_eq!(s.negotiate_initialize("2024-11-05"), Some(V::V2024_11_05));
        assert!(!s.serves_modern());
        assert_eq!(s.modern().count(), 0);
        let m = SupportedVersions::only(&[V::V2026_07_28]);
        assert_eq!(m.negotiate_initialize("2025-11-25"), None);
        assert_eq!(m.modern().collect::<Vec<_>>(), vec![V::V2026_07_28]);
        assert_eq!(m.strings(), vec!["2026-07-28"]);
    }
}
