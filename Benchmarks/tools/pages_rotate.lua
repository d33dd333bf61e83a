-- wrk script for Benchmarks/pages.sh: every request asks for the next path of a list, round
-- robin (the searches of the book, so that each one searches rather than hitting a kept result).
-- usage: wrk ... -s pages_rotate.lua http://HOST:PORT -- PATHS_FILE   (one path a line)
-- Headers given with -H (the visitor's Cookie) go with every request.
local paths, next_index = {}, 1

function init(args)
    for line in io.lines(args[1]) do
        if #line > 0 then paths[#paths + 1] = line end
    end
    if #paths == 0 then error("no paths in " .. tostring(args[1])) end
end

function request()
    local path = paths[next_index]
    next_index = next_index % #paths + 1
    return wrk.format(nil, path)
end
