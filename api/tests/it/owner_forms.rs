//! The Forms screen's routes over HTTP, on both backends (issue 44): building a form (its
//! fields of each kind and its settings), changing it by merge patch, deleting it, and the
//! CSV exports of its submissions and of the subscribers. The saved form is what the site
//! serves and what a visitor's submission is checked against. Bad input by field, another
//! site's forms (404), roles without the forms area (403), a session's change without its
//! CSRF token (403).

use crate::support::{Backend, QUILL_TOKEN, Response, Server, Visitor, request};
use serde_json::{Value, json};

const QUILL: &str = "quillback.localhost";
const SKY: &str = "skyward.localhost";
const BOOKING: &str = "a11ce5000000000000c0f0e1";

crate::on_both_backends!(
    building_a_form,
    checks_by_field,
    what_the_site_serves_and_checks,
    csv_exports,
    roles_sites_and_sessions,
);

fn start(backend: Backend) -> Server {
    Server::with_owners(backend, &["--form-submissions-per-minute", "100000"])
}

fn call(server: &Server, method: &str, path: &str, body: Value) -> Response {
    server.owner_call(QUILL, QUILL_TOKEN, method, path, &body)
}

fn new_form() -> Value {
    json!({
        "name": "Workshop sign-up",
        "fields": [
            {"type": "name", "title": "Your name", "required": true},
            {"id": "mail", "type": "email", "title": "Email", "required": true, "placeholder": "you@example.com"},
            {"id": "level", "type": "radio", "title": "Level", "options": ["Beginner", "Confident"], "required": true},
            {"id": "notes", "type": "textarea", "title": "Anything else?", "maxLength": 20, "description": "Optional"},
            {"type": "section", "title": "About you", "underline": true}
        ],
        "settings": {"recipients": ["bench@quillback.example", "shop@quillback.example"],
                     "submissionMessage": "See you there!", "captcha": false}
    })
}

fn submit(v: &mut Visitor, form_id: &str, answers: Value) -> Response {
    let r = v.post("/api/form/FormSubmissionKey", Value::Null);
    assert_eq!(r.status, 200, "{}", r.body);
    let key = r.json()["key"].as_str().unwrap().to_owned();
    v.post(
        "/api/form/SaveFormSubmission",
        json!({"key": key, "formId": form_id, "form": answers.to_string(), "pagePath": "/workshop"}),
    )
}

fn building_a_form(backend: Backend) {
    let server = start(backend);
    let r = call(&server, "POST", "/api/owner/forms", new_form());
    assert_eq!(r.status, 201, "{}", r.body);
    let made = r.json();
    let id = made["id"].as_str().unwrap().to_owned();
    assert_eq!(made["name"], "Workshop sign-up");
    assert_eq!(made["submissions"], 0);
    let fields = made["fields"].as_array().unwrap();
    assert_eq!(fields.len(), 5);
    // A field without an id is given one; the ones given are kept.
    assert_eq!(fields[0]["id"].as_str().unwrap().len(), 12);
    assert_eq!(fields[1]["id"], "mail");
    assert_eq!(fields[3]["maxLength"], 20);
    assert_eq!(
        made["settings"],
        json!({"captcha": false, "newsletter": false,
               "recipients": ["bench@quillback.example", "shop@quillback.example"],
               "submissionMessage": "See you there!", "successRedirect": "", "disclaimer": ""})
    );
    // One form, with its fields and settings, as made.
    let path = format!("/api/owner/forms/{id}");
    let got = call(&server, "GET", &path, Value::Null);
    assert_eq!(got.status, 200);
    assert_eq!(got.json(), made);
    // Listed by name, with counts.
    let list = call(&server, "GET", "/api/owner/forms", Value::Null).json();
    let names: Vec<&str> = list["forms"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Book a repair", "Newsletter", "Workshop sign-up"]);
    assert_eq!(list["forms"][2]["fieldCount"], 5);
    assert_eq!(list["forms"][1]["newsletter"], true);

    // A merge patch: the name changes, fields are replaced whole, settings merged.
    let r = call(
        &server,
        "PATCH",
        &path,
        json!({"name": "Workshop", "fields": [fields[1].clone(), fields[0].clone()],
               "settings": {"successRedirect": "www.example.com/thanks", "captcha": true, "recipients": null}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let changed = r.json();
    assert_eq!(changed["name"], "Workshop");
    assert_eq!(changed["fields"], json!([fields[1], fields[0]]));
    assert_eq!(changed["settings"]["captcha"], true);
    assert_eq!(changed["settings"]["recipients"], json!([]));
    assert_eq!(
        changed["settings"]["successRedirect"],
        "https://www.example.com/thanks"
    );
    assert_eq!(changed["settings"]["submissionMessage"], "See you there!");
    assert_eq!(call(&server, "GET", &path, Value::Null).json(), changed);

    // Deleting: the form and its answers go; a second delete finds nothing.
    let r = call(&server, "DELETE", &path, Value::Null);
    assert_eq!((r.status, r.json()), (200, json!({"deleted": id})));
    assert_eq!(call(&server, "GET", &path, Value::Null).status, 404);
    assert_eq!(call(&server, "DELETE", &path, Value::Null).status, 404);
    let subs = format!("{path}/submissions");
    assert_eq!(call(&server, "GET", &subs, Value::Null).status, 404);
}

fn checks_by_field(backend: Backend) {
    let server = start(backend);
    let r = call(
        &server,
        "POST",
        "/api/owner/forms",
        json!({
            "name": " ",
            "fields": [
                {"type": "rocket", "title": "Boom"},
                {"type": "select", "title": "Pick", "options": ["A", "A", ""]},
                {"type": "checkbox", "title": "Extras"},
                {"type": "email", "title": "", "maxLength": 5},
                {"type": "text", "title": "x".repeat(201), "maxLength": 0},
                {"id": "same", "type": "text", "title": "One"},
                {"id": "same", "type": "text", "title": "Two", "required": "yes"}
            ],
            "settings": {"recipients": ["", "not an address", "ok@example.com"],
                         "successRedirect": "nowhere", "newsletter": "yes", "colour": "red"},
            "extra": 1
        }),
    );
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({
            "name": "Please enter a name.",
            "extra": "A form has no such setting.",
            "fields[0].type": "Choose a kind of field.",
            "fields[1].options[1]": "This option is already there.",
            "fields[1].options[2]": "An option is 1 to 200 characters.",
            "fields[2].options": "Add at least one option.",
            "fields[3].title": "Please enter a label.",
            "fields[3].maxLength": "This kind of field has no such setting.",
            "fields[4].title": "A label is at most 200 characters.",
            "fields[4].maxLength": "A character limit is a whole number from 1 to 100000.",
            "fields[6].id": "Two fields have this id.",
            "fields[6].required": "This is true or false.",
            "settings.recipients[0]": "Please enter a valid email",
            "settings.recipients[1]": "Emails must be formatted as name@example.com",
            "settings.successRedirect": "Links must be formatted as www.example.com or https://www.example.com",
            "settings.newsletter": "This is true or false.",
            "settings.colour": "A form has no such setting."
        })
    );
    // Bounds: fields, recipients.
    let many: Vec<Value> = (0..101)
        .map(|i| json!({"type": "text", "title": format!("F{i}")}))
        .collect();
    let r = call(
        &server,
        "POST",
        "/api/owner/forms",
        json!({"name": "Big", "fields": many,
               "settings": {"recipients": vec!["a@example.com"; 11]}}),
    );
    assert_eq!(
        r.json()["errors"]["fields"],
        "A form has at most 100 fields."
    );
    assert_eq!(
        r.json()["errors"]["settings.recipients"],
        "A form mails at most 10 addresses."
    );
    // A newsletter form needs an email field.
    let r = call(
        &server,
        "PATCH",
        &format!("/api/owner/forms/{BOOKING}"),
        json!({"settings": {"newsletter": true}, "fields": [{"type": "text", "title": "Name"}]}),
    );
    assert_eq!(
        r.json()["errors"],
        json!({"settings.newsletter": "A newsletter form needs an Email field."})
    );
    // Not an object; bad JSON.
    let r = call(
        &server,
        "PATCH",
        &format!("/api/owner/forms/{BOOKING}"),
        json!([1]),
    );
    assert_eq!(r.status, 400);
    // Nothing was changed by the refusals.
    let booking = call(
        &server,
        "GET",
        &format!("/api/owner/forms/{BOOKING}"),
        Value::Null,
    )
    .json();
    assert_eq!(booking["name"], "Book a repair");
    assert_eq!(booking["fields"].as_array().unwrap().len(), 8);
    assert_eq!(
        booking["settings"]["recipients"],
        json!(["bench@quillback.example"])
    );
}

fn what_the_site_serves_and_checks(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, QUILL, "203.0.113.61");
    let path = format!("/api/owner/forms/{BOOKING}");
    let mut booking = call(&server, "GET", &path, Value::Null).json();
    // The phone becomes required and the details get a 10-character limit.
    let fields = booking["fields"].as_array_mut().unwrap();
    fields[2]["required"] = json!(true);
    fields[6]["maxLength"] = json!(10);
    let r = call(
        &server,
        "PATCH",
        &path,
        json!({"fields": booking["fields"], "settings": {"submissionMessage": "Booked."}}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    // The next schema the site serves is the saved form.
    let schema = v.get("/api/template/GetTemplateSchema?type=form").json();
    let served = schema["forms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["id"] == BOOKING)
        .unwrap()
        .clone();
    assert_eq!(served["fields"], booking["fields"]);
    assert_eq!(served["submissionMessage"], "Booked.");
    assert!(
        !served.to_string().contains("bench@"),
        "recipients stay private"
    );
    // A visitor's submission is checked against the saved fields.
    let answers = json!({
        "name": ["Ada", "Lovelace"], "email": "ada@example.com", "bike": "Road",
        "service": "Full overhaul", "details": "Far too long for ten"
    });
    let r = submit(&mut v, BOOKING, answers.clone());
    assert_eq!(r.status, 400, "{}", r.body);
    assert_eq!(
        r.json()["errors"],
        json!({"phone": "Required", "details": "You have exceeded the character limit."})
    );
    let mut ok = answers;
    ok["phone"] = json!(["608", "555", "0142"]);
    ok["details"] = json!("Creaks.");
    let r = submit(&mut v, BOOKING, ok);
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["submissionMessage"], "Booked.");
    assert_eq!(
        call(&server, "GET", &path, Value::Null).json()["submissions"],
        1
    );

    // A new form with two recipients: both are mailed each submission.
    let made = call(&server, "POST", "/api/owner/forms", new_form()).json();
    let id = made["id"].as_str().unwrap();
    let name_id = made["fields"][0]["id"].as_str().unwrap();
    let r = submit(
        &mut v,
        id,
        json!({name_id: ["Pat", "Rider"], "mail": "pat@example.com", "level": "Beginner"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let mut to: Vec<String> = server
        .with_store(|s| {
            Box::pin(async move {
                let t = s.tenant_by_host(QUILL).await.unwrap().unwrap();
                s.outbox(t.id).await.unwrap()
            })
        })
        .into_iter()
        .filter(|m| m.email.subject.contains("Workshop sign-up"))
        .map(|m| m.email.to)
        .collect();
    to.sort();
    assert_eq!(to, ["bench@quillback.example", "shop@quillback.example"]);

    // A deleted form's block: the visitor is told it is not configured.
    assert_eq!(
        call(
            &server,
            "DELETE",
            &format!("/api/owner/forms/{id}"),
            Value::Null
        )
        .status,
        200
    );
    let r = submit(&mut v, id, json!({"mail": "pat@example.com"}));
    assert_eq!(
        (r.status, r.message()),
        (404, "This form has not been configured yet.".to_owned())
    );
}

fn csv_exports(backend: Backend) {
    let server = start(backend);
    let mut v = Visitor::arrive(&server, QUILL, "203.0.113.62");
    let made = call(
        &server,
        "POST",
        "/api/owner/forms",
        json!({"name": "Club", "fields": [
            {"id": "who", "type": "name", "title": "Name"},
            {"id": "mail", "type": "email", "title": "Email, please", "required": true},
            {"type": "section", "title": "More"},
            {"id": "kinds", "type": "checkbox", "title": "Rides", "options": ["Road", "Gravel"]},
            {"id": "note", "type": "text", "title": "Note"}
        ], "settings": {"newsletter": true}}),
    );
    assert_eq!(made.status, 201, "{}", made.body);
    let id = made.json()["id"].as_str().unwrap().to_owned();
    let r = submit(
        &mut v,
        &id,
        json!({"who": ["Ada", "Lovelace"], "mail": "ada@example.com", "kinds": ["Road", "Gravel"],
               "note": "=HYPERLINK(\"http://x\")"}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let r = submit(&mut v, &id, json!({"mail": "-bob@example.com"}));
    assert_eq!(r.status, 200, "{}", r.body);

    // The table's one call: the form's head (its columns) and the answers, oldest first.
    let r = call(
        &server,
        "GET",
        &format!("/api/owner/forms/{id}/submissions"),
        Value::Null,
    );
    let table = r.json();
    assert_eq!(table["form"]["name"], "Club");
    assert_eq!(table["form"]["fields"][1]["title"], "Email, please");
    assert_eq!(
        table["submissions"][0]["answers"]["mail"],
        "ada@example.com"
    );
    assert_eq!(table["submissions"].as_array().unwrap().len(), 2);

    let r = call(
        &server,
        "GET",
        &format!("/api/owner/forms/{id}/submissions.csv"),
        Value::Null,
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/csv; charset=utf-8"));
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=\"submissions.csv\"")
    );
    let lines: Vec<&str> = r.body.split("\r\n").collect();
    assert_eq!(lines[0], "submitted,page,Name,\"Email, please\",Rides,Note");
    let row = lines[1].split_once(",/workshop,").unwrap().1;
    assert_eq!(
        row,
        "Ada Lovelace,ada@example.com,\"Road, Gravel\",\"'=HYPERLINK(\"\"http://x\"\")\""
    );
    assert!(lines[1].starts_with("20"), "{}", lines[1]);
    assert_eq!(
        lines[2].split_once(",/workshop,").unwrap().1,
        "N/A,'-bob@example.com,N/A,N/A"
    );
    assert_eq!(lines[3], "");
    assert_eq!(lines.len(), 4);

    let r = call(&server, "GET", "/api/owner/subscribers.csv", Value::Null);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("content-disposition"),
        Some("attachment; filename=\"subscribers.csv\"")
    );
    let lines: Vec<&str> = r.body.split("\r\n").collect();
    assert_eq!(lines[0], "email,source,subscribed");
    let club = format!("form:{id}");
    let ours: Vec<&str> = lines
        .iter()
        .filter(|l| l.contains(&club))
        .copied()
        .collect();
    assert_eq!(ours.len(), 2, "{}", r.body);
    assert!(ours[0].starts_with(&format!("ada@example.com,{club},20")));
    assert!(ours[1].starts_with(&format!("'-bob@example.com,{club},20")));
    // Deleting the form keeps its subscribers on the list.
    call(
        &server,
        "DELETE",
        &format!("/api/owner/forms/{id}"),
        Value::Null,
    );
    let r = call(&server, "GET", "/api/owner/subscribers.csv", Value::Null);
    assert_eq!(r.body.matches(&club).count(), 2);
}

fn roles_sites_and_sessions(backend: Backend) {
    let server = start(backend);
    // Another site's form is not found through this one.
    let sky = server.owner_token("skyward", "admin");
    let made = server.owner_call(SKY, &sky, "POST", "/api/owner/forms", &new_form());
    assert_eq!(made.status, 201, "{}", made.body);
    let sky_form = made.json()["id"].as_str().unwrap().to_owned();
    let theirs = format!("/api/owner/forms/{sky_form}");
    for (method, path, body) in [
        ("GET", theirs.clone(), Value::Null),
        ("PATCH", theirs.clone(), json!({"name": "Mine"})),
        ("DELETE", theirs.clone(), Value::Null),
        ("GET", format!("{theirs}/submissions.csv"), Value::Null),
        ("GET", format!("{theirs}/submissions"), Value::Null),
    ] {
        let r = call(&server, method, &path, body);
        assert_eq!(
            (r.status, r.message()),
            (404, "That form does not exist.".to_owned()),
            "{method} {path}"
        );
    }
    let r = server.owner_call(SKY, &sky, "GET", &theirs, &Value::Null);
    assert_eq!(r.json()["name"], "Workshop sign-up", "untouched");

    // Roles: the editor has no forms area; reporting reads only.
    let editor = server.owner_token("quillback", "editor");
    let reporting = server.owner_token("quillback", "reporting");
    let own = format!("/api/owner/forms/{BOOKING}");
    let csv = format!("{own}/submissions.csv");
    let calls = [
        ("GET", "/api/owner/forms", Value::Null),
        ("POST", "/api/owner/forms", new_form()),
        ("GET", own.as_str(), Value::Null),
        ("PATCH", own.as_str(), json!({"name": "x"})),
        ("DELETE", own.as_str(), Value::Null),
        ("GET", csv.as_str(), Value::Null),
        ("GET", "/api/owner/subscribers.csv", Value::Null),
    ];
    for (method, path, body) in &calls {
        let r = server.owner_call(QUILL, &editor, method, path, body);
        assert_eq!(r.status, 403, "{method} {path}: {}", r.body);
        let r = server.owner_call(QUILL, &reporting, method, path, body);
        assert_eq!(
            r.status,
            if *method == "GET" { 200 } else { 403 },
            "{method} {path}"
        );
    }

    // A signed-in session changes forms with its CSRF token only.
    let cookie = crate::owner_accounts::owner_session(&server, "quillback", QUILL);
    let send = |method: &str, path: &str, csrf: Option<&str>, body: &Value| {
        server.session_call(QUILL, &cookie, csrf, method, path, body)
    };
    let rename = json!({"name": "Signed in"});
    assert_eq!(send("PATCH", &own, None, &rename).status, 403);
    assert_eq!(
        send("POST", "/api/owner/forms", None, &new_form()).status,
        403
    );
    assert_eq!(send("DELETE", &own, None, &Value::Null).status, 403);
    let me = request(
        server.port,
        "GET",
        QUILL,
        "/api/owner/session",
        &[("Cookie", cookie.as_str())],
        "",
    );
    let csrf = me.json()["csrf"].as_str().unwrap().to_owned();
    let r = send("PATCH", &own, Some(&csrf), &rename);
    assert_eq!(
        (r.status, r.json()["name"].clone()),
        (200, json!("Signed in")),
        "{}",
        r.body
    );
}
