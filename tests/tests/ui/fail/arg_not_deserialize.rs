struct Filter {
    year: u32,
}

#[mcp::tool]
async fn search(filter: Filter) -> String {
    filter.year.to_string()
}

fn main() {}
