-- tempdb on the drive under test on localhost (filelocation.* does not move it),
-- and the buffer pool's ceiling; takes effect at the next restart of mssql-server.
ALTER DATABASE tempdb MODIFY FILE (NAME = tempdev, FILENAME = '/mnt/dut/drivebench/tempdb/tempdb.mdf');
ALTER DATABASE tempdb MODIFY FILE (NAME = templog, FILENAME = '/mnt/dut/drivebench/tempdb/templog.ldf');
EXEC sp_configure 'show advanced options', 1;
RECONFIGURE;
EXEC sp_configure 'max server memory (MB)', 6144;
RECONFIGURE;
