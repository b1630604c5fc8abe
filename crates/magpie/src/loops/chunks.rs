//! Chunk-size rules of the central-queue schedules (placeholder until implemented).
