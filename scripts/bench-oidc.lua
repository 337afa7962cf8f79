-- wrk script for scripts/bench-oidc.py: complete OpenID flows, one per pre-signed assertion.
--   wrk -t T -c T -d 600s --timeout 30s -s bench-oidc.lua URL -- BODIES_FILE T MARKER CLIENT_BASIC CHALLENGE VERIFIER CLIENT_ID
-- One connection per thread (-c equal to -t), so each thread's requests and responses pair up:
-- finalize (a pre-signed assertion of BODIES_FILE) -> GET /oauth/authorize with its session as
-- Bearer -> POST /oauth/token with the code, the PKCE verifier and Basic client credentials ->
-- GET /oauth/userinfo with the access token; then the next flow. Thread k takes lines k, k+T, ...
-- A step that does not answer as expected counts as a failure and ends that flow.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } bo_timespec;
int clock_gettime(int clk_id, bo_timespec *tp);
]]
local ts = ffi.new("bo_timespec")
local function now()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

local threads, nsetup = {}, 0
function setup(thread)
  thread:set("tid", nsetup)
  nsetup = nsetup + 1
  table.insert(threads, thread)
end

bodies, total, flow, step, flows_done, failures, t_first, t_last = {}, 0, 0, 0, 0, 0, 0, 0
local session, code, access = nil, nil, nil
local redirect = "http%3A%2F%2F127.0.0.1%2Fcallback"

local function mark_done()
  local f = io.open(marker .. "." .. tid, "w")
  if f then f:write("done\n"); f:close() end
end

function init(args)
  local file, nthreads = args[1], tonumber(args[2])
  marker, basic, challenge, verifier, client_id = args[3], args[4], args[5], args[6], args[7]
  local i = 0
  for line in io.lines(file) do
    if i % nthreads == tid and #line > 0 then table.insert(bodies, line) end
    i = i + 1
  end
  total = #bodies
  if total == 0 then mark_done() end
  verify_pending = (tid == 0)
end

function delay()
  if flow >= total and step == 0 then return 3600000 end
  return 0
end

function request()
  if verify_pending then
    verify_pending = false
    return wrk.format("GET", "/healthz")
  end
  if step == 0 then
    if flow >= total then return wrk.format("GET", "/healthz") end
    flow = flow + 1
    if t_first == 0 then t_first = now() end
    return wrk.format("POST", "/authentication_finalize", {["Content-Type"] = "application/json"}, bodies[flow])
  elseif step == 1 then
    local path = "/oauth/authorize?response_type=code&client_id=" .. client_id .. "&redirect_uri=" .. redirect ..
      "&scope=openid%20profile&state=s&nonce=n&code_challenge=" .. challenge .. "&code_challenge_method=S256"
    return wrk.format("GET", path, {["Authorization"] = "Bearer " .. session})
  elseif step == 2 then
    local form = "grant_type=authorization_code&code=" .. code .. "&redirect_uri=" .. redirect .. "&code_verifier=" .. verifier
    return wrk.format("POST", "/oauth/token", {["Content-Type"] = "application/x-www-form-urlencoded", ["Authorization"] = "Basic " .. basic}, form)
  else
    return wrk.format("GET", "/oauth/userinfo", {["Authorization"] = "Bearer " .. access})
  end
end

-- A flow ended (done or failed): the next starts; after the thread's last, it is done.
local function ended(ok)
  if ok then flows_done = flows_done + 1 else failures = failures + 1 end
  step = 0
  if flow >= total then
    t_last = now()
    mark_done()
  end
end

local function fail() ended(false) end
local function finished() ended(true) end

function response(status, headers, body)
  if step == 0 then
    if flow > total or t_first == 0 then return end
    session = status == 200 and body:match('"session":"([^"]+)"') or nil
    if session then step = 1 else fail() end
  elseif step == 1 then
    local location = headers["Location"] or headers["location"] or ""
    code = status == 302 and location:match("[?&]code=([^&]+)") or nil
    if code then step = 2 else fail() end
  elseif step == 2 then
    access = status == 200 and body:match('"access_token":"([^"]+)"') or nil
    if access then step = 3 else fail() end
  else
    if status == 200 then finished() else fail() end
  end
end

function done(summary, latency, requests)
  local flows, bad, first, last = 0, 0, math.huge, 0
  for _, thread in ipairs(threads) do
    flows = flows + thread:get("flows_done")
    bad = bad + thread:get("failures")
    local f, l = thread:get("t_first"), thread:get("t_last")
    if f > 0 and f < first then first = f end
    if l > last then last = l end
  end
  io.stderr:write(string.format("BENCH-OIDC flows=%d failures=%d seconds=%.4f\n", flows, bad, last - first))
end
