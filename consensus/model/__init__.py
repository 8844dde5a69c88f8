"""Typed data handed from stage to stage, named for the stage that makes it.

base      Frozen and the enums every stage shares (Severity, Category, Status, ...)
diff      ingest  -> DiffLine, Hunk, ChangedFile, SkippedFile, Redaction, LinkChange,
          ReviewDiff, Chunk
reply     the model I/O contract: ReviewReply / ReplyFinding / VerdictReply
findings  fan-out -> ModelReview | ModelFailure (holding Finding / DroppedFinding);
          align -> Cluster; score -> ScoredCluster; verify -> Verification (Vote)
report    Report, what `--format json` writes

Everything here is frozen: stages return new values, they never edit old ones.
"""
