-- The bench's report from wrk (scripts/bench/wrk.ts): wrk itself counts only answers >= 400 as
-- errors, so each thread counts the answers that are not 2xx (a redirect to the sign-in page is one)
-- and the bytes of the bodies; done() prints the whole run as one line of JSON, latencies in µs.
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  not_ok = 0
  body_bytes = 0
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    not_ok = not_ok + 1
  end
  body_bytes = body_bytes + #body
end

function done(summary, latency, requests)
  local bad, bytes = 0, 0
  for _, t in ipairs(threads) do
    bad = bad + t:get("not_ok")
    bytes = bytes + t:get("body_bytes")
  end
  local e = summary.errors
  io.write(string.format(
    '{"requests":%d,"durationUs":%d,"bodyBytes":%d,"notOk":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%d,"p95":%d,"p99":%d}\n',
    summary.requests, summary.duration, bytes, bad, e.connect, e.read, e.write, e.timeout,
    latency:percentile(50), latency:percentile(95), latency:percentile(99)))
end
