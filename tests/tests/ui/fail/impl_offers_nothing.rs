struct Empty;

#[mcp::server]
impl Empty {
    fn helper(&self) {}
}

fn main() {}
