# Real clients against the module (included from redis/CMakeLists.txt, inside if(LFBLOOM_TESTS)):
# redis-py, Jedis + Redisson (Maven, JUnit 5) and go-redis, each a scenario that clients.py runs
# against a server it starts, on redis-server and on Valkey. Maven's output goes to this build
# directory (-DbuildDirectory), its downloads to ~/.m2; Go's to its module and build caches.
find_program(MVN mvn REQUIRED)
find_program(GO go REQUIRED)
set(clients_work ${CMAKE_CURRENT_BINARY_DIR}/clients)
foreach(client python java go)
  add_test(NAME redis.clients.${client}
    COMMAND ${venv}/bin/python ${tests}/clients/clients.py $<TARGET_FILE:lfbloom_redis> ${client} ${clients_work}/redis)
  set_tests_properties(redis.clients.${client} PROPERTIES FIXTURES_REQUIRED redis TIMEOUT 600
    ENVIRONMENT "MVN=${MVN};GO=${GO}")
  # Its own work directory: ctest -j may run both Maven builds at once
  add_test(NAME redis.valkey.clients.${client}
    COMMAND ${venv}/bin/python ${tests}/clients/clients.py $<TARGET_FILE:lfbloom_redis> ${client} ${clients_work}/valkey)
  set_tests_properties(redis.valkey.clients.${client} PROPERTIES FIXTURES_REQUIRED "redis;valkey" TIMEOUT 600
    ENVIRONMENT "LFBLOOM_SERVER=${valkey};MVN=${MVN};GO=${GO}")
endforeach()
# One go-redis scenario at a time: the second finds the first's build in Go's cache (run at once,
# each compiled go-redis itself, 74 s apiece on 2 cores).
set_tests_properties(redis.clients.go redis.valkey.clients.go PROPERTIES RESOURCE_LOCK go-redis-build)
