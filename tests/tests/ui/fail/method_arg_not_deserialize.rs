// The `#[tool]` method form: a derive-less argument and a bad return type are one error
// each, at the user's tokens.
struct Filter {
    year: u32,
}

struct Books(Vec<String>);

struct Shop;

#[mcp::server]
impl Shop {
    #[tool]
    async fn search(&self, filter: Filter) -> String {
        filter.year.to_string()
    }

    #[tool]
    async fn list(&self) -> Books {
        Books(vec![])
    }
}

fn main() {}
