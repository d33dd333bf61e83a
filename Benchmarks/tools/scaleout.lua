-- wrk script for Benchmarks/scaleout.sh: prints one JSON line at the end (requests, seconds,
-- p50/p99 in microseconds, answers by status). With SCALEOUT_WRITERS=FILE (one "cookie<TAB>csrf"
-- line per writer), each thread is one writer: it POSTs /profile/name with a new display name on
-- its own session, one save at a time (run with -t N -c N).
local writers_file = os.getenv("SCALEOUT_WRITERS")
local threads = {}
local next_id = 0

function setup(thread)
    thread:set("id", next_id)
    next_id = next_id + 1
    table.insert(threads, thread)
end

function init(args)
    statuses = {}
    saves = 0
    if writers_file then
        local lines = {}
        for line in io.lines(writers_file) do table.insert(lines, line) end
        local cookie, token = lines[(id % #lines) + 1]:match("^([^\t]*)\t(.*)$")
        wrk.method = "POST"
        wrk.path = "/profile/name"
        wrk.headers["Cookie"] = cookie
        wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
        csrf = token
    end
end

function request()
    if not writers_file then return wrk.format() end
    saves = saves + 1
    return wrk.format(nil, nil, nil, "display_name=Writer+" .. id .. "+save+" .. saves .. "&csrf_token=" .. csrf)
end

function response(status, headers, body)
    statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests)
    local counts = {}
    for _, thread in ipairs(threads) do
        local s = thread:get("statuses")
        for code, n in pairs(s) do counts[code] = (counts[code] or 0) + n end
    end
    local parts = {}
    for code, n in pairs(counts) do table.insert(parts, string.format('"%d": %d', code, n)) end
    io.write(string.format('SCALEOUT {"requests": %d, "seconds": %.6f, "p50_us": %d, "p99_us": %d, ' ..
        '"socket_errors": %d, "statuses": {%s}}\n', summary.requests, summary.duration / 1e6,
        latency:percentile(50), latency:percentile(99),
        summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
        table.concat(parts, ", ")))
end
