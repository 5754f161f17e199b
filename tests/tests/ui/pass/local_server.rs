// Tools and a server declared inside a function body: the server names its listed
// functions from there.
fn main() {
    /// Adds two numbers.
    #[mcp::tool]
    async fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    #[mcp::server(name = "local", tools(add))]
    struct Local;

    let _server = Local.into_server();
}
