#!/bin/sh
# SQL Server settings for the drive under test on localhost, rendered by
# prepare_target.yml (drivebench_engine = "mssql"); run once as root, then restart mssql-server.
set -e
MSSQL_CONF=/opt/mssql/bin/mssql-conf
# New databases' data and log files on the drive under test (master, model and msdb stay).
"$MSSQL_CONF" set filelocation.defaultdatadir /mnt/dut/drivebench/data
"$MSSQL_CONF" set filelocation.defaultlogdir /mnt/dut/drivebench/log
# The memory SQL Server may use, MB: below the host's, so the database does not fit in it.
"$MSSQL_CONF" set memory.memorylimitmb 8192
# FUA-capable storage only: write-through by FUA instead of flushes (trace flag 3979).
"$MSSQL_CONF" traceflag 3979 on
"$MSSQL_CONF" set control.alternatewritethrough 0
"$MSSQL_CONF" set control.writethrough 1
