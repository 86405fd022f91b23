//! `tessera dev`'s live side: the folder watcher, the events browsers listen to, and the
//! script pages get.
//!
//! The watcher looks at the template folder's files every [`POLL`]; when one changed it
//! reads the folder, compiles its LESS and checks it ([`renderer::check`]). A save that adds
//! errors is not served: the last good version keeps serving, the new errors go to the
//! terminal and, as an overlay with file, line, column and the source line, to every open
//! page. Otherwise the folder becomes the site's next template version and every open page
//! reloads. (The first version is served whatever it has, its errors printed: a folder
//! brought from elsewhere may use a formatter we lack, which renders as nothing.)

use std::convert::Infallible;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant, SystemTime};

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use renderer::check::{Finding, Severity};
use renderer::folder::{TemplateFiles, read_dir};
use serde_json::{Value, json};
use tenants::{Store, TemplateFile, TenantId};
use tokio::sync::broadcast;

mod samples;

/// How often the folder is looked at (a few dozen `stat` calls: cheap, and a save is seen
/// soon enough to reload the page well within 300 ms).
const POLL: Duration = Duration::from_millis(10);
/// Where pages listen.
pub const EVENTS: &str = "/_tessera/dev/events";

/// What `tessera dev` adds to the server.
pub struct Dev {
    /// The one site every host is answered with.
    pub tenant: TenantId,
    /// The last state sent (a reload or the problems), for pages that connect later.
    state: RwLock<Value>,
    events: broadcast::Sender<Value>,
    /// The errors of the version being served: a folder brought from elsewhere may have some
    /// (an unknown formatter renders as nothing), and a save that adds none to them is
    /// served; one that adds any is not.
    served: std::sync::Mutex<Option<std::collections::BTreeSet<String>>>,
    /// The stylesheets are compiled again only when a save changed them.
    less: Arc<crate::styles::LastCompile>,
    /// The served version's errors as the overlay shows them: a page that cannot render
    /// at all (a `template.conf` that does not parse leaves no layout) shows them.
    served_problems: RwLock<Vec<Value>>,
    /// The render-time errors already said on the terminal for the served version.
    said: std::sync::Mutex<std::collections::BTreeSet<String>>,
}

impl Dev {
    pub fn new(tenant: TenantId) -> Arc<Dev> {
        Arc::new(Dev {
            tenant,
            state: RwLock::new(json!({"type": "ok"})),
            events: broadcast::channel(16).0,
            served: std::sync::Mutex::new(None),
            less: Arc::default(),
            served_problems: RwLock::new(Vec::new()),
            said: std::sync::Mutex::new(Default::default()),
        })
    }

    /// What a page rendered with the served version shows in its overlay from the first
    /// load: its render-time errors (each said once on the terminal too), and, when the page
    /// could not be rendered at all (`failed`), the version's own errors, which say why.
    pub fn page_problems(&self, path: &str, errors: &[String], failed: bool) -> Vec<Value> {
        let mut out: Vec<Value> = Vec::new();
        if failed {
            out.extend(
                self.served_problems
                    .read()
                    .expect("dev problems")
                    .iter()
                    .cloned(),
            );
        }
        let mut said = self.said.lock().expect("dev said");
        for e in errors {
            if said.len() < 1000 && said.insert(format!("{path}\n{e}")) {
                eprintln!("tessera dev: {path}: {e}");
            }
            out.push(json!({"location": path, "message": e}));
        }
        out
    }

    fn publish(&self, event: Value) {
        *self.state.write().expect("dev state") = event.clone();
        let _ = self.events.send(event);
    }
}

/// The script dev pages get (before `</body>`): reload on a good save, an overlay with the
/// problems on a bad one, gone on the next good one; a page whose render had errors (the
/// script element's `data-problems`) shows them in the overlay from its first load. The page carries the template version
/// it was rendered with (the script element's `data-version`), and reloads on any reload
/// event naming another one, the first included: a save that lands between the render and
/// the stream's connection is not missed, and the version the page already shows is not
/// reloaded again. The text is the same on every page, so the security policy allows it by
/// its hash ([`crate::server::security`]); the overlay styles itself through the CSSOM, which
/// the policy's `style-src` does not govern.
pub const SCRIPT: &str = r#"(() => {
  const rendered = Number(document.currentScript.dataset.version);
  const own = JSON.parse(document.currentScript.dataset.problems || "[]");
  const show = (problems, heading) => {
    let o = document.getElementById("tessera-dev-overlay");
    if (!o) {
      o = document.createElement("div");
      o.id = "tessera-dev-overlay";
      o.setAttribute("role", "alert");
      o.style.cssText = "position:fixed;inset:0;z-index:2147483647;overflow:auto;background:rgba(20,20,24,.94);color:#f4f4f5;font:14px/1.5 ui-monospace,monospace;padding:2rem;white-space:pre-wrap";
      document.body.appendChild(o);
    }
    o.textContent = heading + "\n\n" +
      problems.map((p) => `${p.location}: ${p.message}${p.source ? "\n  " + p.source + "\n  " + p.caret : ""}`).join("\n\n");
  };
  const mine = () => own.length ? show(own, "tessera dev: rendering this page had errors") : document.getElementById("tessera-dev-overlay")?.remove();
  mine();
  const es = new EventSource("/_tessera/dev/events");
  es.onmessage = (e) => {
    const m = JSON.parse(e.data);
    if (m.type === "problems") show(m.problems, "tessera dev: the template has errors; the last good version is still served");
    else if (m.type === "reload" && m.version !== rendered) location.reload();
    else mine();
  };
})();"#;

/// Adds [`SCRIPT`] to a dev page rendered with template `version`, with the `problems` its
/// overlay shows from the first load (escaped: an error may quote the request's path).
pub fn inject(body: &mut String, version: i64, problems: &[Value]) {
    let problems = if problems.is_empty() {
        String::new()
    } else {
        format!(
            " data-problems=\"{}\"",
            crate::http::small_page::escape(&Value::from(problems.to_vec()).to_string())
        )
    };
    let script = format!("<script data-version=\"{version}\"{problems}>{SCRIPT}</script>\n");
    match body.rfind("</body>") {
        Some(at) => body.insert_str(at, &script),
        None => body.push_str(&script),
    }
}

/// Under `tessera dev`, the page that could not be rendered: what went wrong, each problem
/// escaped (the overlay says the same once the script runs).
pub fn failed_page(problems: &[Value]) -> String {
    use crate::http::small_page::escape;
    let mut items = String::new();
    for p in problems {
        let location = p["location"].as_str().unwrap_or_default();
        let message = p["message"].as_str().unwrap_or_default();
        items.push_str(&format!(
            "<li><code>{}</code>: {}</li>",
            escape(location),
            escape(message)
        ));
    }
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>tessera dev: this page could not be rendered</title></head><body><main><h1>This page could not be rendered</h1><ul>{items}</ul></main></body></html>"
    )
}

/// `GET /_tessera/dev/events`: the current state, then every change.
pub async fn events(State(dev): State<Option<Arc<Dev>>>) -> Response {
    let Some(dev) = dev else {
        return (axum::http::StatusCode::NOT_FOUND, "Not Found").into_response();
    };
    let rx = dev.events.subscribe();
    let first = dev.state.read().expect("dev state").clone();
    let stream = futures_util::stream::unfold((Some(first), rx), |(pending, mut rx)| async move {
        let v = match pending {
            Some(v) => v,
            None => loop {
                match rx.recv().await {
                    Ok(v) => break v,
                    // Behind: the next event says where things stand.
                    Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            },
        };
        Some((
            Ok::<_, Infallible>(Event::default().data(v.to_string())),
            (None, rx),
        ))
    });
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// What the folder's files were last time: path, modified time, length.
fn fingerprint(dir: &Path) -> Vec<(String, Option<SystemTime>, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "node_modules" {
                continue;
            }
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                stack.push(e.path());
            } else {
                out.push((
                    e.path().to_string_lossy().into_owned(),
                    meta.modified().ok(),
                    meta.len(),
                ));
            }
        }
    }
    out.sort();
    out
}

/// A problem as the overlay shows it.
fn overlay_problem(f: &Finding, files: &TemplateFiles) -> Value {
    let source = (f.line > 0)
        .then(|| files.get(&f.file).and_then(|b| std::str::from_utf8(b).ok()))
        .flatten()
        .and_then(|t| t.split('\n').nth(f.line as usize - 1))
        .map(|l| l.trim_end_matches('\r').to_owned());
    let location = if f.line == 0 {
        f.file.clone()
    } else {
        format!("{}:{}:{}", f.file, f.line, f.column)
    };
    // The caret under the column, as `tessera check` puts it: the tabs before it kept, so
    // it lines up under a line indented with tabs too.
    let caret = source.as_deref().map(|line| {
        let pad: String = line
            .chars()
            .take(f.column.saturating_sub(1) as usize)
            .map(|c| if c == '\t' { '\t' } else { ' ' })
            .collect();
        format!("{pad}^")
    });
    json!({"location": location, "file": f.file, "line": f.line, "column": f.column,
           "message": f.message, "source": source, "caret": caret})
}

/// Reads, compiles and checks the folder; on success stores it as the next version.
pub async fn rebuild(
    store: &Store,
    dev: &Dev,
    dir: &Path,
    settings: &serde_json::Map<String, Value>,
) {
    let started = Instant::now();
    let compiles = dev.less.runs();
    let dir2 = dir.to_path_buf();
    let settings2 = settings.clone();
    let less = dev.less.clone();
    let built =
        tokio::task::spawn_blocking(move || -> Result<(TemplateFiles, Vec<Finding>), String> {
            let files = read_dir(&dir2).map_err(|e| e.to_string())?;
            let (files, mut findings) = crate::styles::checked(files, &settings2, &less);
            findings.retain(|f| f.severity == Severity::Error);
            Ok((files, findings))
        })
        .await;
    let (files, findings) = match built {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => {
            eprintln!("tessera dev: reading {}: {e}", dir.display());
            return;
        }
        Err(e) => {
            eprintln!("tessera dev: {e}");
            return;
        }
    };
    let errors: std::collections::BTreeSet<String> =
        findings.iter().map(ToString::to_string).collect();
    let added: Vec<&Finding> = {
        let served = dev.served.lock().expect("dev served");
        match &*served {
            // The first version is served whatever it has: there is nothing better yet.
            None => Vec::new(),
            Some(before) => findings
                .iter()
                .filter(|f| !before.contains(&f.to_string()))
                .collect(),
        }
    };
    if !added.is_empty() {
        for f in &added {
            eprintln!("{f}");
        }
        eprintln!(
            "tessera dev: {} new error(s); still serving the last good version",
            added.len()
        );
        let problems: Vec<Value> = added.iter().map(|f| overlay_problem(f, &files)).collect();
        dev.publish(json!({"type": "problems", "problems": problems}));
        return;
    }
    if !errors.is_empty() {
        for f in &findings {
            eprintln!("{f}");
        }
        eprintln!(
            "tessera dev: serving it with {} known error(s) (tessera check lists them)",
            errors.len()
        );
    }
    *dev.served.lock().expect("dev served") = Some(errors);
    *dev.served_problems.write().expect("dev problems") = findings
        .iter()
        .map(|f| overlay_problem(f, &files))
        .collect();
    dev.said.lock().expect("dev said").clear();
    let template: Vec<TemplateFile> = files
        .iter()
        .map(|(path, bytes)| TemplateFile {
            path: path.clone(),
            content: bytes.to_vec(),
        })
        .collect();
    for said in samples::fill(store, dev.tenant, &files).await {
        eprintln!("tessera dev: {said}");
    }
    match store.put_template_version(dev.tenant, &template).await {
        Ok(v) => {
            eprintln!(
                "tessera dev: template version {} in {} ms{}",
                v.0,
                started.elapsed().as_millis(),
                if dev.less.runs() > compiles {
                    " (stylesheets compiled)"
                } else {
                    ""
                }
            );
            dev.publish(json!({"type": "reload", "version": v.0}));
        }
        Err(e) => eprintln!("tessera dev: storing the template failed: {e}"),
    }
}

/// Watches `dir` for as long as the server runs.
pub fn watch(
    store: Store,
    dev: Arc<Dev>,
    dir: PathBuf,
    settings: serde_json::Map<String, Value>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut seen = fingerprint(&dir);
        loop {
            tokio::time::sleep(POLL).await;
            let mut now = fingerprint(&dir);
            if now != seen {
                // An editor may write a file in steps (truncate, then write): build only
                // once the folder has held still for one more look.
                loop {
                    tokio::time::sleep(POLL).await;
                    let again = fingerprint(&dir);
                    if again == now {
                        break;
                    }
                    now = again;
                }
                seen = now;
                rebuild(&store, &dev, &dir, &settings).await;
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overlay_caret_is_under_the_column_after_tabs() {
        let files = renderer::folder::template_files([(
            "regions/site.region",
            "<body>\n\t\t<p>{.section x<b>{@}</b>{.end}</p>\r\n",
        )]);
        let finding = Finding {
            file: "regions/site.region".into(),
            line: 2,
            column: 6,
            severity: Severity::Error,
            message: "m".into(),
        };
        let p = overlay_problem(&finding, &files);
        assert_eq!(p["location"], "regions/site.region:2:6");
        assert_eq!(p["source"], "\t\t<p>{.section x<b>{@}</b>{.end}</p>");
        assert_eq!(p["caret"], "\t\t   ^");
        let whole = Finding {
            line: 0,
            column: 0,
            ..finding
        };
        assert_eq!(overlay_problem(&whole, &files)["caret"], Value::Null);
    }
}
