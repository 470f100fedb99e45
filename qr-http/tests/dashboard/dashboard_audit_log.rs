//! The audit log page through the real server: changes made in the dashboard are listed with the user as actor and no secret, filtered by actor, object and dates, paged, downloaded as CSV with the same filters, and refused filters are said on the page.

use crate::common;

use common::web::{Client, attribute_after, customer, set_plan, start};
use qr_domain::Plan;

/// The entries' table of an audit page.
fn entries(html: &str) -> &str {
    let start = html
        .find("id=\"audit-entries\"")
        .expect("the entries' table");
    let end = html[start..].find("</table>").expect("the table ends") + start;
    &html[start..end]
}

/// Posts the link form; the dashboard answers 303 when the link is created.
async fn post_link(c: &mut Client, name: &str) {
    let csrf = c.csrf("/dashboard/links").await;
    let r = c
        .post(
            "/dashboard/links",
            &[
                ("csrf", &csrf),
                ("name", name),
                ("targetUrl", "https://shop.example/poster"),
            ],
        )
        .await;
    assert_eq!(r.status, 303, "{}", r.text());
}

/// Creates a link in the dashboard; returns its id.
async fn create_link(c: &mut Client, name: &str) -> String {
    post_link(c, name).await;
    let list = c.get("/dashboard/links").await.text();
    attribute_after(&list, "href=\"/dashboard/links/")
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_audit_log_lists_filters_pages_and_downloads_changes() {
    let (s, smtp) = start(|_| {}).await;
    let mut c = customer(&s, &smtp, "auditor@example.com").await;
    let link = create_link(&mut c, "Spring flyer").await;
    let csrf = c.csrf("/dashboard/webhooks").await;
    let r = c
        .post(
            "/dashboard/webhooks",
            &[
                ("csrf", &csrf),
                ("url", "https://hooks.example.com/qr"),
                ("events", "link.created"),
                ("secret", "a-webhook-secret-of-24ch"),
            ],
        )
        .await;
    assert_eq!(r.status, 201);

    let page = c.get("/dashboard/audit").await;
    assert_eq!(page.status, 200);
    let html = page.text();
    assert!(
        !html.contains("<script>") && !html.contains("style=\""),
        "no inline script or style"
    );
    let table = entries(&html);
    assert!(table.contains("webhook.created"), "{table}");
    assert!(table.contains("link.created"), "{table}");
    assert!(
        table.contains("auditor@example.com"),
        "the user is the actor"
    );
    assert!(table.contains("127.0.0.0/24"), "the client's network");
    assert!(table.contains("Spring flyer"));
    assert!(
        !html.contains("a-webhook-secret-of-24ch"),
        "the secret never shows"
    );
    assert!(html.contains("aria-current=\"page\">Audit log"));

    // Filters: the link's entries only, and dates that hold nothing.
    let only_link = c
        .get(&format!("/dashboard/audit?object=link:{link}"))
        .await
        .text();
    let table = entries(&only_link);
    assert!(table.contains("link.created") && !table.contains("webhook.created"));
    assert!(
        only_link.contains(&format!(
            "href=\"/dashboard/audit.csv?object=link%3A{link}\""
        )),
        "the CSV link carries the filters"
    );
    let none = c
        .get("/dashboard/audit?since=2020-01-01&until=2020-01-31")
        .await
        .text();
    assert!(none.contains("No entries."));
    let refused = c.get("/dashboard/audit?since=yesterday").await;
    assert_eq!(refused.status, 400);
    assert!(refused.text().contains("invalid since"));

    // The CSV: the header, newest first, filtered like the page.
    let csv = c.get("/dashboard/audit.csv").await;
    assert_eq!(csv.status, 200);
    assert!(csv.header("content-type").unwrap().starts_with("text/csv"));
    let text = csv.text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "id,time,actorKind,actorId,actor,action,objectKind,objectId,changes,network"
    );
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[1].contains(",webhook.created,"));
    assert!(lines[2].contains(",link.created,") && lines[2].contains(",user,"));
    assert!(
        lines[3].contains(",login.succeeded,"),
        "the login is logged too"
    );
    assert!(!text.contains("a-webhook-secret-of-24ch"));
    let filtered = c.get("/dashboard/audit.csv?object=webhook").await.text();
    assert_eq!(filtered.lines().count(), 2);

    // Paging: 49 more links (on Pro, past Free's 5) make 53 entries with the login and the plan
    // change, two pages.
    set_plan(&s, "auditor@example.com", Plan::Pro);
    for i in 0..49 {
        post_link(&mut c, &format!("Link {i}")).await;
    }
    let first = c.get("/dashboard/audit").await.text();
    let older = attribute_after(&first, "href=\"/dashboard/audit?cursor=").expect("an older page");
    let second = c
        .get(&format!("/dashboard/audit?cursor={older}"))
        .await
        .text();
    let rows = |html: &str| entries(html).matches("<tr>\n").count();
    assert_eq!(rows(&first), 50);
    assert_eq!(rows(&second), 3, "53 entries in all");
    assert!(
        !second.contains("cursor="),
        "the last page links no older one"
    );
    s.stop().await;
}
