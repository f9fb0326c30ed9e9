/**
 * The 404's body when a staff member opens an owner's page: the error screen offers the way back to /staff. A module
 * of its own, since the root's error boundary reads it and the staff schemas need not ride along.
 */
export const STAFF_NOT_HERE = 'This page is for the business owner.'
