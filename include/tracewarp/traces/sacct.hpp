// Slurm accounting logs as a trace (format "sacct"): what a site's own Slurm recorded, so its
// history replays with its partitions and logged waits. Make one with
//
//   sacct --allusers --parsable2 --starttime=2026-01-01 --endtime=2026-02-01
//         --format=JobIDRaw,JobID,User,Group,Partition,QOS,Submit,Start,End,Timelimit,NNodes,NCPUS,State
//   (one command line)
//
// (a header line of field names and '|' between fields, as --parsable2 prints them; the fields
// may come in any order and others are ignored). Required: JobID or JobIDRaw, Submit, Start,
// End, State, and NNodes or NCPUS (AllocCPUS is read as NCPUS). The rules, each counted in the
// read tally where it drops or repairs a record:
//  * Job steps ("123.batch", "123.extern", "123.0") are parts of a job, not jobs: skipped.
//  * Array tasks ("123_4") and heterogeneous components ("123+1") are jobs; their id is JobIDRaw
//    when given, else the number before '_' or '+' (rows then share an id, which is said).
//  * State, its first word ("CANCELLED by 1000" is CANCELLED), gives the SWF status: COMPLETED
//    1; FAILED, TIMEOUT, NODE_FAIL, BOOT_FAIL, OUT_OF_MEMORY, DEADLINE, PREEMPTED 0 (failed or
//    killed); CANCELLED 5 (cancelled after it started). A job that never started (Start
//    "Unknown" or "None") or has not ended (End "Unknown"; PENDING, RUNNING, REQUEUED,
//    SUSPENDED, ...) occupied no finished interval of the machine: dropped.
//  * Times (YYYY-MM-DDTHH:MM:SS) are read as written, without a time zone: waits and run times
//    are exact except across a daylight-saving change of the site's clock. The trace starts at
//    its first submission (UnixStartTime holds it, read as UTC).
//  * Timelimit ([days-]hours:minutes:seconds, minutes:seconds or minutes) is the requested
//    time; UNLIMITED or Partition_Limit is unknown: the run time is used (counted).
//  * User, Group, Partition and QOS names become numbers in order of first appearance (the
//    header's Users/Groups/Partitions/Queues fields list them: "0=thin 1=fat"); QOS is the queue
//    (batch.queue_priorities), Partition the partition (batch.partitions).
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace tracewarp::traces {

class TraceReader;
std::unique_ptr<TraceReader> open_sacct(const std::string& path);
// Whether a file's first line is a sacct --parsable2 header.
bool is_sacct_header(std::string_view first_line);

}  // namespace tracewarp::traces
