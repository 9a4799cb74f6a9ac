//! VS Code's chat mutation log replayed on a JSON state
//! (agent-logs-more.md "Replay", after `objectMutationLog.ts`): each entry
//! after the first replaces the state, sets a value at a path, appends to
//! an array at a path (after cutting it), or deletes at a path. An entry
//! that cannot be applied leaves the state as it was, so one bad line costs
//! that line only (VS Code would drop the whole file).

use serde_json::{Map, Value};

/// Why an entry was not applied: it is skipped and counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotApplied;

/// One step of a path: strings index objects, numbers arrays.
#[derive(Debug, Clone, Copy)]
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The state an entry `{"kind":0,"v":{…}}` starts (or restarts) the log
/// with, when `entry` is one.
pub fn full_state(entry: &mut Map<String, Value>) -> Option<Value> {
    if entry.get("kind").and_then(Value::as_u64) != Some(0) {
        return None;
    }
    match entry.remove("v") {
        Some(v @ Value::Object(_)) => Some(v),
        _ => None,
    }
}

/// Applies one entry of the log to `state`.
pub fn apply(state: &mut Value, mut entry: Map<String, Value>) -> Result<(), NotApplied> {
    match entry.get("kind").and_then(Value::as_u64) {
        Some(0) => {
            *state = full_state(&mut entry).ok_or(NotApplied)?;
            Ok(())
        }
        Some(1) => {
            let value = entry.remove("v").ok_or(NotApplied)?;
            let path = path(entry.get("k"))?;
            let Some((last, parents)) = path.split_last() else {
                // An empty path changes nothing, as in VS Code.
                return Ok(());
            };
            set(walk(state, parents)?, *last, value)
        }
        Some(2) => {
            let items = match entry.remove("v") {
                None => Vec::new(),
                Some(Value::Array(items)) => items,
                Some(_) => return Err(NotApplied),
            };
            let cut = match entry.get("i") {
                None => None,
                Some(i) => Some(whole_number(i).ok_or(NotApplied)?),
            };
            let path = path(entry.get("k"))?;
            let array = array_at(state, &path)?;
            if let Some(cut) = cut {
                array.truncate(cut);
            }
            array.extend(items);
            Ok(())
        }
        Some(3) => {
            let path = path(entry.get("k"))?;
            let Some((last, parents)) = path.split_last() else {
                return Ok(());
            };
            match (walk(state, parents)?, *last) {
                (Value::Object(map), Step::Key(key)) => map.remove(key).map(drop).ok_or(NotApplied),
                // VS Code leaves the element `undefined`: the array keeps
                // its length.
                (Value::Array(items), Step::Index(i)) => {
                    *items.get_mut(i).ok_or(NotApplied)? = Value::Null;
                    Ok(())
                }
                _ => Err(NotApplied),
            }
        }
        _ => Err(NotApplied),
    }
}

/// The entry's `k`: an array of strings and whole numbers.
fn path(k: Option<&Value>) -> Result<Vec<Step<'_>>, NotApplied> {
    let Some(Value::Array(steps)) = k else {
        return Err(NotApplied);
    };
    steps
        .iter()
        .map(|step| match step {
            Value::String(key) => Ok(Step::Key(key)),
            other => whole_number(other).map(Step::Index).ok_or(NotApplied),
        })
        .collect()
}

/// A JSON number that is a whole number from 0 on (`3` or `3.0`).
fn whole_number(value: &Value) -> Option<usize> {
    if let Some(n) = value.as_u64() {
        return usize::try_from(n).ok();
    }
    let f = value.as_f64()?;
    // Whole, not negative, and exactly representable as an index.
    (f >= 0.0 && f.fract() == 0.0 && f < 9_007_199_254_740_992.0).then_some(f as usize)
}

/// The value at `path`, every step of which must exist.
fn walk<'v>(mut at: &'v mut Value, path: &[Step<'_>]) -> Result<&'v mut Value, NotApplied> {
    for step in path {
        at = match (at, *step) {
            (Value::Object(map), Step::Key(key)) => map.get_mut(key),
            (Value::Array(items), Step::Index(i)) => items.get_mut(i),
            _ => None,
        }
        .ok_or(NotApplied)?;
    }
    Ok(at)
}

/// Sets key or index `last` of `parent` to `value`.
fn set(parent: &mut Value, last: Step<'_>, value: Value) -> Result<(), NotApplied> {
    match (parent, last) {
        (Value::Object(map), Step::Key(key)) => {
            map.insert(key.to_string(), value);
            Ok(())
        }
        (Value::Array(items), Step::Index(i)) => {
            *items.get_mut(i).ok_or(NotApplied)? = value;
            Ok(())
        }
        _ => Err(NotApplied),
    }
}

/// The array at `path` for an append: a missing last key or a `null` there
/// becomes an empty array; anything else that is no array fails.
fn array_at<'v>(state: &'v mut Value, path: &[Step<'_>]) -> Result<&'v mut Vec<Value>, NotApplied> {
    let slot = match path.split_last() {
        None => state,
        Some((last, parents)) => match (walk(state, parents)?, *last) {
            (Value::Object(map), Step::Key(key)) => map.entry(key).or_insert(Value::Null),
            (Value::Array(items), Step::Index(i)) => items.get_mut(i).ok_or(NotApplied)?,
            _ => return Err(NotApplied),
        },
    };
    if slot.is_null() {
        *slot = Value::Array(Vec::new());
    }
    match slot {
        Value::Array(items) => Ok(items),
        _ => Err(NotApplied),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn entry(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    fn replay(start: Value, entries: &[Value]) -> (Value, usize) {
        let mut state = start;
        let mut skipped = 0;
        for e in entries {
            if apply(&mut state, entry(e.clone())).is_err() {
                skipped += 1;
            }
        }
        (state, skipped)
    }

    #[test]
    fn set_append_with_a_cut_and_delete_give_the_live_branch() {
        let (state, skipped) = replay(
            json!({"requests": [], "customTitle": null}),
            &[
                json!({"kind":2,"k":["requests"],"v":[{"id":"a","response":[]}]}),
                json!({"kind":2,"k":["requests",0,"response"],"v":[{"value":"x"}]}),
                json!({"kind":2,"k":["requests"],"v":[{"id":"b"}]}),
                json!({"kind":1,"k":["customTitle"],"v":"T"}),
                // An edit of request 1: cut to one, then append.
                json!({"kind":2,"k":["requests"],"v":[{"id":"c"}],"i":1}),
                json!({"kind":3,"k":["requests",0,"response"]}),
                json!({"kind":2,"k":["requests",1,"added"]}),
                json!({"kind":1,"k":[],"v":1}),
            ],
        );
        assert_eq!(skipped, 0);
        assert_eq!(
            state,
            json!({"requests": [{"id":"a"}, {"id":"c","added":[]}], "customTitle": "T"})
        );
    }

    #[test]
    fn entries_that_do_not_resolve_change_nothing() {
        let start = json!({"requests": [{"id":"a"}], "n": 1});
        let bad = [
            json!({"kind":4,"k":["n"],"v":2}),
            json!({"kind":"1","k":["n"],"v":2}),
            json!({"kind":1,"k":["n"]}),
            json!({"kind":1,"k":"n","v":2}),
            json!({"kind":1,"k":["missing","x"],"v":2}),
            json!({"kind":1,"k":["requests",1],"v":2}),
            json!({"kind":1,"k":["requests","0"],"v":2}),
            json!({"kind":1,"k":["n","x"],"v":2}),
            json!({"kind":1,"k":["requests",-1],"v":2}),
            json!({"kind":2,"k":["n"],"v":[1]}),
            json!({"kind":2,"k":["requests"],"v":{"id":"b"}}),
            json!({"kind":2,"k":["requests"],"v":[],"i":-1}),
            json!({"kind":2,"k":["requests"],"v":[],"i":0.5}),
            json!({"kind":2,"k":[],"v":[1]}),
            json!({"kind":3,"k":["missing"]}),
            json!({"kind":3,"k":["requests",3]}),
            json!({"kind":0,"v":[1]}),
        ];
        let (state, skipped) = replay(start.clone(), &bad);
        assert_eq!((state, skipped), (start, bad.len()));
    }

    #[test]
    fn a_cut_past_the_end_keeps_all_and_a_delete_in_an_array_leaves_null() {
        let (state, skipped) = replay(
            json!({"a": [1, 2]}),
            &[
                json!({"kind":2,"k":["a"],"v":[3],"i":9.0}),
                json!({"kind":3,"k":["a",0]}),
                json!({"kind":0,"v":{"b":[]}}),
                json!({"kind":2,"k":["b"],"i":0}),
            ],
        );
        assert_eq!(skipped, 0);
        assert_eq!(state, json!({"b": []}));
        let (state, _) = replay(json!({"a": [1, 2]}), &[json!({"kind":3,"k":["a",0]})]);
        assert_eq!(state, json!({"a": [null, 2]}));
    }
}
