/// Tries to take over the handshake.
#[mcp::tool]
async fn initialize(version: String) -> String {
    version
}

fn main() {}
