/** Why a copy was refused or did not complete; the CLI prints the message. */
export class CopyStoreError extends Error {}
