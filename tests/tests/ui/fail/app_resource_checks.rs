//! `#[resource("ui://...")]` is checked at compile time: the app MIME type, CSP entries
//! that are origins, known directives and permissions, app keys only on `ui://`, no
//! template.

#[mcp::resource("ui://v/html", mime_type = "text/html")]
async fn wrong_mime() -> String {
    String::new()
}

#[mcp::resource(
    "ui://v/csp",
    csp(
        connect_domains("https://api.example.com/v1", "https://u:p@example.com"),
        resource_domains("cdn.example.com", "ftp://files.example.com"),
        script_domains("https://x.example.com")
    ),
    permissions(camera, usb)
)]
async fn bad_csp() -> String {
    String::new()
}

#[mcp::resource("books://catalog", prefers_border, domain = "https://x.example.com")]
async fn not_a_view() -> String {
    String::new()
}

#[mcp::resource("ui://v/{id}")]
async fn template(id: String) -> String {
    id
}

fn main() {}
