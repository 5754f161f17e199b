#[mcp::prompt]
async fn summarize(text: String, max_words: u32, style: Option<Vec<String>>) -> String {
    format!("{text}{max_words}{style:?}")
}

fn main() {}
