//! A value set once whose type the holder does not know: how a lower layer carries what an
//! upper one attaches to it (a connection's server handle, its legacy subscriptions) without
//! importing the upper layer.

use std::any::Any;
use std::sync::OnceLock;

/// Holds one value of a type chosen by whoever sets it first.
#[derive(Default)]
pub(crate) struct Slot(OnceLock<Box<dyn Any + Send + Sync>>);

impl Slot {
    /// The value, made by `init` if the slot is empty.
    ///
    /// # Panics
    /// If the slot holds a value of another type: each slot has one owner, which always
    /// asks for the same type.
    pub(crate) fn get_or_init<T: Any + Send + Sync>(&self, init: impl FnOnce() -> T) -> &T {
        self.0
            .get_or_init(|| Box::new(init()))
            .downcast_ref()
            .expect("a slot holds one type")
    }

    /// The value, if one of type `T` was set.
    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        self.0.get()?.downcast_ref()
    }
}

impl std::fmt::Debug for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.get().is_some() {
            "Slot(set)"
        } else {
            "Slot(empty)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_value_stays_and_reads_back_by_type() {
        let slot = Slot::default();
        assert_eq!(slot.get::<u32>(), None);
        assert_eq!(*slot.get_or_init(|| 7u32), 7);
        assert_eq!(*slot.get_or_init(|| 8u32), 7);
        assert_eq!(slot.get::<u32>(), Some(&7));
        assert_eq!(slot.get::<String>(), None);
    }
}
