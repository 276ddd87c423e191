//! The load record both loaders keep in the `drivebench_meta` table (`meta_get` / `meta_put`
//! statements of each benchmark's statements file): a key's value, read or written. What the
//! keys mean (state, signature) is each loader's business.

use crate::engines::{EngineError, Rows, Session, Statements, Value};

/// The value recorded under `key`, if any.
pub async fn get<S: Session>(
    s: &mut S,
    st: &Statements,
    key: &str,
) -> Result<Option<String>, EngineError> {
    let id = s.prepare(&st.render("meta_get", &[])).await?;
    let mut rows = Rows::default();
    s.query(id, &[Value::Text(key.into())], &mut rows).await?;
    Ok(match rows.get(0, 0) {
        Some(Value::Text(t)) => Some(t.clone()),
        _ => None,
    })
}

/// Record `value` under `key`, replacing what was there.
pub async fn put<S: Session>(
    s: &mut S,
    st: &Statements,
    key: &str,
    value: &str,
) -> Result<(), EngineError> {
    let id = s.prepare(&st.render("meta_put", &[])).await?;
    s.execute(id, &[Value::Text(key.into()), Value::Text(value.into())])
        .await?;
    Ok(())
}
