export { listWorkspaceFiles, type WorkspaceEntry, type WorkspaceListing } from "./listWorkspaceFiles.ts";
export { openArtifact } from "./openArtifact.ts";
export { artifactId, publishArtifact, requireBlobs, storeArtifact } from "./publishArtifact.ts";
export { MAX_WORKSPACE_FILE_BYTES, readWorkspaceBytes } from "./readWorkspaceBytes.ts";
export { checkRelativePath, resolveExisting, resolveForWrite, workspaceRoot, type WorkspacePath } from "./resolveWorkspacePath.ts";
export { sha256Hex } from "./sha256Hex.ts";
export { workspaceDirFor } from "./workspaceDirFor.ts";
export { createWorkspaceTools } from "./workspaceTools.ts";
export { writeWorkspaceFile } from "./writeWorkspaceFile.ts";
