//! Typed per-request state that middleware attaches and handlers read.

use std::any::{Any, TypeId};
use std::sync::Arc;

/// A type map, cheap to clone (copy on write).
///
/// A request carries a handful of entries (its HTTP request, a principal, ...), so they
/// sit in a small vector searched by `TypeId`: no hashing and one allocation fewer per
/// request than a hash map.
#[derive(Clone, Default)]
pub struct Extensions {
    map: Option<Arc<Vec<Entry>>>,
}

/// One value and the type it was inserted as.
type Entry = (TypeId, Arc<dyn Any + Send + Sync>);

impl Extensions {
    /// Inserts a value, replacing one of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        let id = TypeId::of::<T>();
        let value: Arc<dyn Any + Send + Sync> = Arc::new(value);
        let map = Arc::make_mut(
            self.map
                .get_or_insert_with(|| Arc::new(Vec::with_capacity(2))),
        );
        match map.iter_mut().find(|(k, _)| *k == id) {
            Some(slot) => slot.1 = value,
            None => map.push((id, value)),
        }
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        let id = TypeId::of::<T>();
        self.map
            .as_ref()?
            .iter()
            .find(|(k, _)| *k == id)
            .and_then(|(_, v)| v.downcast_ref::<T>())
    }

    /// Removes the value of type `T`; whether there was one.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> bool {
        let id = TypeId::of::<T>();
        let Some(map) = self.map.as_mut() else {
            return false;
        };
        if !map.iter().any(|(k, _)| *k == id) {
            return false;
        }
        Arc::make_mut(map).retain(|(k, _)| *k != id);
        true
    }

    /// Whether nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.map.as_ref().is_none_or(|m| m.is_empty())
    }
}

impl std::fmt::Debug for Extensions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Extensions")
            .field("len", &self.map.as_ref().map_or(0, |m| m.len()))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_insert_get_and_copy_on_write() {
        let mut a = Extensions::default();
        assert!(a.is_empty());
        a.insert(5u32);
        a.insert("x".to_string());
        let mut b = a.clone();
        b.insert(6u32);
        assert_eq!(a.get::<u32>(), Some(&5));
        assert_eq!(b.get::<u32>(), Some(&6));
        assert_eq!(b.get::<String>().map(String::as_str), Some("x"));
        assert!(b.remove::<String>());
        assert!(b.get::<String>().is_none());
        assert!(a.get::<String>().is_some());
        assert!(a.get::<i8>().is_none());
    }
}
