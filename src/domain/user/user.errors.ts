/** Expected rejections of user commands: values, mapped to an AppError once in src/commands/errors.ts. */
export type UserError =
  | Readonly<{ _tag: 'UserNotFound'; userId: number }>
  | Readonly<{ _tag: 'UserAlreadyRegistered'; userId: number }>
  | Readonly<{ _tag: 'UserExists'; field: 'email' | 'username' }>
  | Readonly<{ _tag: 'UsernameAlreadySet'; userId: number }>
  | Readonly<{ _tag: 'MfaAlreadyEnabled'; userId: number }>
  | Readonly<{ _tag: 'MfaNotEnabled'; userId: number }>
  | Readonly<{ _tag: 'AlreadyBanned'; userId: number }>
  | Readonly<{ _tag: 'NotBanned'; userId: number }>
  /** Nobody may demote or ban themselves out of the back office by accident. */
  | Readonly<{ _tag: 'SelfTarget'; userId: number; action: string }>;

export type UserErrorTag = UserError['_tag'];
