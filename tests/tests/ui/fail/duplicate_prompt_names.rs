struct Shop;

#[mcp::server]
impl Shop {
    #[prompt(name = "review")]
    async fn review_code(&self, code: String) -> String {
        code
    }

    #[prompt(name = "review")]
    async fn review_text(&self, text: String) -> String {
        text
    }
}

#[mcp::prompt(name = "greet")]
async fn hello() -> String {
    "hi".into()
}

#[mcp::prompt(name = "greet")]
async fn welcome() -> String {
    "welcome".into()
}

#[mcp::server(prompts(hello, welcome))]
struct Greeter;

fn main() {}
