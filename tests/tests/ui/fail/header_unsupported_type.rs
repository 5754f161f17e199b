#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Filter {
    genre: String,
}

#[mcp::tool]
async fn lookup(
    #[arg(header = "Price")] price: f64,
    #[arg(header = "Tags")] tags: Vec<String>,
    #[arg(header = "Filter")] filter: Filter,
    #[arg(header = "Limit")] limit: Option<f32>,
    #[arg(header = "Shelf")] shelf: Option<u32>,
) -> String {
    format!("{price}{tags:?}{}{limit:?}{shelf:?}", filter.genre)
}

fn main() {}
