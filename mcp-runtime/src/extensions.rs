//! Typed per-request state that middleware attaches and handlers read.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::Arc;

/// A type map, cheap to clone (copy on write).
#[derive(Clone, Default)]
pub struct Extensions {
    map: Option<Arc<HashMap<TypeId, Arc<dyn Any + Send + Sync>>>>,
}

impl Extensions {
    /// Inserts a value, replacing one of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        let map = self.map.get_or_insert_with(Default::default);
        Arc::make_mut(map).insert(TypeId::of::<T>(), Arc::new(value));
    }

    /// The value of type `T`, if one was inserted.
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.map
            .as_ref()?
            .get(&TypeId::of::<T>())
            .and_then(|v| v.downcast_ref::<T>())
    }

    /// Removes the value of type `T`; whether there was one.
    pub fn remove<T: Send + Sync + 'static>(&mut self) -> bool {
        match self.map.as_mut() {
            Some(map) => Arc::make_mut(map).remove(&TypeId::of::<T>()).is_some(),
            None => false,
        }
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
