#[mcp::tool]
async fn lookup(
    #[arg(header = "Region")] region: String,
    #[arg(header = "region")] fallback: Option<String>,
) -> String {
    format!("{region}{fallback:?}")
}

fn main() {}
