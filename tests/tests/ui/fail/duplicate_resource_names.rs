struct Library;

#[mcp::server]
impl Library {
    #[resource("books://catalog")]
    async fn catalog(&self) -> String {
        String::new()
    }

    #[resource("books://all", name = "catalog")]
    async fn all(&self) -> String {
        String::new()
    }

    #[resource("books://{id}")]
    async fn book(&self, id: u32) -> String {
        id.to_string()
    }

    #[resource("books://{id}")]
    async fn book_again(&self, id: u32) -> String {
        id.to_string()
    }
}

#[mcp::resource("films://{id}", name = "film")]
async fn film(id: String) -> String {
    id
}

#[mcp::resource("movies://{id}", name = "film")]
async fn movie(id: String) -> String {
    id
}

#[mcp::server(resources(film, movie))]
struct Cinema;

fn main() {}
