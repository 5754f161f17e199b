/// One book.
#[mcp::resource("books://{shelf}/{id}")]
async fn book(id: u32, author: String) -> String {
    format!("{id}{author}")
}

/// The catalogue.
#[mcp::resource("books://catalog")]
async fn catalog(page: u32) -> String {
    page.to_string()
}

fn main() {}
