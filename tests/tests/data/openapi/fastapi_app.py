"""A small FastAPI application for tests/tests/openapi.rs: its OpenAPI document is the one
FastAPI generates at /openapi.json (3.1), so the tools under test come from a document no
one here wrote. Path, query, header and body parameters; a nested model ($ref), a
recursive one, an enum; a 201, a 204, a 404 and a 422; a plain-text answer; a slow answer;
one endpoint per credential scheme, each checking its secret (and an OAuth 2 token
endpoint for the client credentials grant, outside the document); and an echo of the
headers the API received.

    python fastapi_app.py        # binds 127.0.0.1 on a free port, prints the port, serves
"""

import asyncio
import base64
import socket
import sys
from urllib.parse import parse_qsl, unquote_plus
from enum import Enum
from typing import Dict, List, Optional

import uvicorn
from fastapi import Depends, FastAPI, Header, HTTPException, Query, Request, Response
from fastapi.openapi.models import OAuthFlows
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import (
    OAuth2,
    APIKeyCookie,
    APIKeyHeader,
    APIKeyQuery,
    HTTPAuthorizationCredentials,
    HTTPBasic,
    HTTPBasicCredentials,
    HTTPBearer,
)
from pydantic import BaseModel

app = FastAPI(title="Pet clinic", version="1.0.0")


class Species(str, Enum):
    cat = "cat"
    dog = "dog"
    bird = "bird"


class Owner(BaseModel):
    name: str
    email: Optional[str] = None


class PetIn(BaseModel):
    name: str
    species: Species
    owner: Owner
    tags: List[str] = []


class Pet(PetIn):
    id: int


class Node(BaseModel):
    label: str
    children: List["Node"] = []


PETS: Dict[int, Pet] = {}


def reset():
    PETS.clear()
    PETS[1] = Pet(id=1, name="Rex", species=Species.dog, owner=Owner(name="Ann"))
    PETS[2] = Pet(id=2, name="Tom", species=Species.cat, owner=Owner(name="Bob"))


reset()


@app.get("/pets", operation_id="list_pets", tags=["pets"], summary="List the pets")
def list_pets(species: Optional[Species] = None, limit: int = Query(10, ge=1, le=100)) -> List[Pet]:
    """The pets, of one species if given."""
    pets = [p for p in PETS.values() if species is None or p.species == species]
    return pets[:limit]


@app.get("/pets/{pet_id}", operation_id="get_pet", tags=["pets"], summary="One pet")
def get_pet(pet_id: int) -> Pet:
    if pet_id not in PETS:
        raise HTTPException(status_code=404, detail=f"no pet {pet_id}")
    return PETS[pet_id]


@app.post("/pets", operation_id="create_pet", tags=["pets"], status_code=201)
def create_pet(pet: PetIn, x_request_id: str = Header(...)) -> Pet:
    new = Pet(id=max(PETS) + 1, **pet.model_dump())
    new.tags = new.tags + [f"request:{x_request_id}"]
    PETS[new.id] = new
    return new


@app.put("/pets/by-name/{name}", operation_id="rename_pet", tags=["pets"])
def rename_pet(name: str, pet: PetIn) -> Pet:
    """The pet called `name` (path) takes the body's data, its new name included."""
    for p in PETS.values():
        if p.name == name:
            updated = Pet(id=p.id, **pet.model_dump())
            PETS[p.id] = updated
            return updated
    raise HTTPException(status_code=404, detail=f"no pet named {name}")


@app.delete("/pets/{pet_id}", operation_id="delete_pet", tags=["pets", "admin"], status_code=204)
def delete_pet(pet_id: int) -> Response:
    if PETS.pop(pet_id, None) is None:
        raise HTTPException(status_code=404, detail=f"no pet {pet_id}")
    return Response(status_code=204)


@app.post("/trees/depth", operation_id="tree_depth", tags=["trees"])
def tree_depth(tree: Node) -> int:
    def depth(n: Node) -> int:
        return 1 + max((depth(c) for c in n.children), default=0)

    return depth(tree)


@app.get("/hello", tags=["misc"], response_class=PlainTextResponse)
def hello(who: str = "world") -> str:
    return f"hello, {who}"


@app.get("/slow", operation_id="slow", tags=["misc"])
async def slow() -> dict:
    await asyncio.sleep(5)
    return {"late": True}


@app.get("/echo/headers", operation_id="echo_headers", tags=["misc"])
def echo_headers(request: Request) -> Dict[str, str]:
    return {k.lower(): v for k, v in request.headers.items()}


@app.post("/reset", operation_id="reset", tags=["misc"])
def do_reset() -> dict:
    reset()
    return {"ok": True}


header_key = APIKeyHeader(name="X-API-Key", auto_error=False)
query_key = APIKeyQuery(name="api_key", auto_error=False)
cookie_key = APIKeyCookie(name="session", auto_error=False)
bearer = HTTPBearer(auto_error=False)
basic = HTTPBasic(auto_error=False)


def granted(ok: bool, scheme: str) -> dict:
    if not ok:
        raise HTTPException(status_code=401, detail=f"{scheme}: missing or wrong credential")
    return {"scheme": scheme, "ok": True}


@app.get("/secure/header", operation_id="secure_header", tags=["auth"])
def secure_header(key: Optional[str] = Depends(header_key)) -> dict:
    return granted(key == "header-secret", "header")


@app.get("/secure/query", operation_id="secure_query", tags=["auth"])
def secure_query(key: Optional[str] = Depends(query_key)) -> dict:
    return granted(key == "query-secret", "query")


@app.get("/secure/cookie", operation_id="secure_cookie", tags=["auth"])
def secure_cookie(key: Optional[str] = Depends(cookie_key)) -> dict:
    return granted(key == "cookie-secret", "cookie")


@app.get("/secure/bearer", operation_id="secure_bearer", tags=["auth"])
def secure_bearer(c: Optional[HTTPAuthorizationCredentials] = Depends(bearer)) -> dict:
    return granted(c is not None and c.credentials == "bearer-secret", "bearer")


@app.get("/secure/basic", operation_id="secure_basic", tags=["auth"])
def secure_basic(c: Optional[HTTPBasicCredentials] = Depends(basic)) -> dict:
    return granted(c is not None and (c.username, c.password) == ("ann", "pa:ss"), "basic")


oauth = OAuth2(
    flows=OAuthFlows(clientCredentials={"tokenUrl": "/oauth/token", "scopes": {"pets:read": "read"}}),
    auto_error=False,
)
ISSUED: List[str] = []


@app.post("/oauth/token", include_in_schema=False)
async def token(request: Request):
    """RFC 6749 4.4: client_secret_basic, form-encoded id and secret."""
    form = dict(parse_qsl((await request.body()).decode()))
    auth = request.headers.get("authorization", "")
    ok = False
    if auth.startswith("Basic "):
        user, _, password = base64.b64decode(auth[6:]).decode().partition(":")
        ok = (unquote_plus(user), unquote_plus(password)) == ("client-1", "cs:ecret")
    if not ok or form.get("grant_type") != "client_credentials":
        return JSONResponse({"error": "invalid_client"}, status_code=401)
    ISSUED.append(f"tok-{len(ISSUED) + 1}")
    return {"access_token": ISSUED[-1], "token_type": "Bearer", "expires_in": 3600,
            "scope": form.get("scope", "")}


@app.post("/oauth/revoke", operation_id="revoke_tokens", tags=["oauth-admin"])
def revoke_tokens() -> dict:
    """Every token issued so far stops working (as if expired early)."""
    ISSUED.clear()
    return {"ok": True}


@app.get("/secure/oauth", operation_id="secure_oauth", tags=["auth"])
def secure_oauth(authorization: Optional[str] = Depends(oauth)) -> dict:
    token = (authorization or "").removeprefix("Bearer ")
    answer = granted(token in ISSUED, "oauth")
    answer["tokens_issued"] = len(ISSUED)
    return answer


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    print(sock.getsockname()[1], flush=True)
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


if __name__ == "__main__":
    sys.exit(main())
