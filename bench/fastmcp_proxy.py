"""FastMCP's proxy in front of the servers of an `mcpServers` file, served over Streamable
HTTP at /mcp: what bench/gateway.sh measures beside `mcp gateway` (same file, same client).

    python fastmcp_proxy.py CONFIG.json PORT

`create_proxy` with the file's dict as it is, the documented way to proxy a config; the only
settings given are the address, the path (/mcp, as the others serve) and the log level
(warnings only, so that no access line is written per request, as the others write none).
"""

import json
import sys

from fastmcp.server import create_proxy


def main() -> None:
    config_path, port = sys.argv[1], int(sys.argv[2])
    with open(config_path) as f:
        config = json.load(f)
    proxy = create_proxy(config, name="fastmcp-proxy")
    proxy.run(
        transport="http",
        host="127.0.0.1",
        port=port,
        path="/mcp",
        log_level="warning",
        show_banner=False,
    )


if __name__ == "__main__":
    main()
