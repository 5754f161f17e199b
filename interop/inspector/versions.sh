# The pinned npm packages of interop/inspector/run.sh (sourced).
INSPECTOR_VERSION=2.12.0 # npm @modelcontextprotocol/inspector (its CLI; engines: node >= 22.19)
NODE22_VERSION=22.23.3   # npm node-<platform>-<arch>: the Node 22 binary that npm `node@22` installs
