-- wrk script for the batch case: the batch body plus the report line.
dofile(os.getenv("LOAD_DIR") .. "/batch.lua")
dofile(os.getenv("LOAD_DIR") .. "/report.lua")
