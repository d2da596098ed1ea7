//! Plain HTTP/1.1 requests with a deadline, answering the status and body whatever the status.

use std::time::Duration;

fn agent(timeout_ms: u64) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(Duration::from_millis(timeout_ms)))
        .http_status_as_error(false)
        .max_idle_connections_per_host(4)
        .build()
        .into()
}

thread_local! {
    /// One agent per thread and timeout: connections are kept and reused, as a real client does.
    static AGENTS: std::cell::RefCell<Vec<(u64, ureq::Agent)>> = const { std::cell::RefCell::new(Vec::new()) };
}

fn with_agent<T>(timeout_ms: u64, f: impl FnOnce(&ureq::Agent) -> T) -> T {
    AGENTS.with(|a| {
        let mut a = a.borrow_mut();
        if let Some((_, ag)) = a.iter().find(|(t, _)| *t == timeout_ms) {
            return f(ag);
        }
        let ag = agent(timeout_ms);
        let r = f(&ag);
        a.push((timeout_ms, ag));
        r
    })
}

/// `GET url`: (status, body), or the transport error.
pub fn get(url: &str, timeout_ms: u64) -> Result<(u16, String), String> {
    with_agent(timeout_ms, |a| {
        let mut res = a.get(url).call().map_err(|e| e.to_string())?;
        let status = res.status().as_u16();
        let body = res.body_mut().read_to_string().map_err(|e| e.to_string())?;
        Ok((status, body))
    })
}

/// `POST url` with a JSON body: (status, body), or the transport error.
pub fn post_json(
    url: &str,
    body: &serde_json::Value,
    timeout_ms: u64,
) -> Result<(u16, String), String> {
    with_agent(timeout_ms, |a| {
        let mut res = a
            .post(url)
            .header("content-type", "application/json")
            .send(body.to_string())
            .map_err(|e| e.to_string())?;
        let status = res.status().as_u16();
        let body = res.body_mut().read_to_string().map_err(|e| e.to_string())?;
        Ok((status, body))
    })
}
