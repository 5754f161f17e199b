#[mcp::tool]
async fn lookup(
    #[arg(header = "Shelf Number")] shelf: String,
    #[arg(header = "")] region: String,
    #[arg(header = "Ré")] lang: String,
) -> String {
    format!("{shelf}{region}{lang}")
}

fn main() {}
