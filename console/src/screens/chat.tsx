import { useEffect, useState } from 'react';
import { Box, MenuItem, Table, TableBody, TableCell, TableHead, TableRow, TextField as MuiTextField, Typography } from '@mui/material';
import { NumberInput, SelectInput, TextInput, Title } from 'react-admin';
import { api } from '../api';
import { can } from '../authProvider';
import { choices } from '../permissions';
import { ApiProblem, CommandButton, CommandForm, Time, UserLink, useSession } from '../ui';

const ROOMS = ['general', 'en', 'es', 'pt', 'ru'];
type Message = { id: string; userId: number; username: string; text: string; createdAt: string; senderCanUseChat: boolean };

/** A room's recent messages (GET /chat/messages), each with delete and, for an admin with user.edit, mute its sender. */
const RecentMessages = ({ roomId }: { roomId: string }) => {
  const me = useSession();
  const [messages, setMessages] = useState<Message[] | undefined>();
  const [error, setError] = useState<unknown>();
  const [tick, setTick] = useState(0);
  useEffect(() => {
    api<Message[]>('GET', `/chat/messages?roomId=${encodeURIComponent(roomId)}&take=50`).then(
      (a) => {
        setMessages(a.json);
        setError(undefined);
      },
      (e: unknown) => setError(e),
    );
  }, [roomId, tick]);
  const reload = () => setTick((t) => t + 1);
  if (error) return <ApiProblem error={error} />;
  if (!messages) return null;
  if (messages.length === 0) return <Typography sx={{ my: 1 }}>No messages in {roomId}.</Typography>;
  return (
    <Table size="small" aria-label={`Recent messages in ${roomId}`}>
      <TableHead>
        <TableRow>
          <TableCell>Sent</TableCell>
          <TableCell>Sender</TableCell>
          <TableCell>Message</TableCell>
          <TableCell>Actions</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {messages.map((m) => (
          <TableRow key={m.id} data-message={m.id}>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>
              <Time at={m.createdAt} />
            </TableCell>
            <TableCell>
              <UserLink id={m.userId} user={{ username: m.username }} />
              {m.senderCanUseChat ? null : ' (muted)'}
            </TableCell>
            <TableCell>{m.text}</TableCell>
            <TableCell sx={{ whiteSpace: 'nowrap' }}>
              <CommandButton
                label="Delete"
                color="error"
                confirm={
                  <>
                    Delete this message by {m.username}: “{m.text}”?
                  </>
                }
                run={() => api('POST', '/chat/admin-action', { action: 'delete_message', args: { messageId: m.id } })}
                done={reload}
              />{' '}
              {can(me, 'user.edit') && m.senderCanUseChat ? (
                <CommandButton
                  label="Mute"
                  confirm={<>Mute {m.username}? They can no longer send chat messages until unmuted on their page.</>}
                  run={() => api('PATCH', `/user/${m.userId}`, { canUseChat: false })}
                  done={reload}
                />
              ) : null}
            </TableCell>
          </TableRow>
        ))}
      </TableBody>
    </Table>
  );
};

/** Chat moderation: each room's recent messages to act on, a message by id, a room's rate limit (POST /chat/admin-action). */
export const ChatPage = () => {
  const [roomId, setRoomId] = useState('general');
  return (
    <Box sx={{ p: 2 }}>
      <Title title="Chat moderation" />
      <Typography variant="h5" component="h1">
        Chat moderation
      </Typography>
      <Box component="section" aria-label="Recent messages" sx={{ my: 2 }}>
        <Typography variant="h6" component="h2">
          Recent messages
        </Typography>
        <MuiTextField
          select
          size="small"
          label="Room"
          value={roomId}
          onChange={(e) => setRoomId(e.target.value)}
          sx={{ my: 1, width: 200 }}
        >
          {ROOMS.map((r) => (
            <MenuItem key={r} value={r}>
              {r}
            </MenuItem>
          ))}
        </MuiTextField>
        <RecentMessages roomId={roomId} />
      </Box>
      <CommandForm
        title="Delete a message"
        label="Delete message"
        confirm={(v) => `Delete chat message ${String(v.messageId)}?`}
        submit={(v) => api('POST', '/chat/admin-action', { action: 'delete_message', args: { messageId: v.messageId } })}
      >
        <TextInput source="messageId" label="Message id" />
      </CommandForm>
      <CommandForm
        title="Room rate limit"
        label="Set rate limit"
        defaultValues={{ roomId: 'general', messagesPerMinute: 10 }}
        submit={(v) =>
          api('POST', '/chat/admin-action', {
            action: 'set_rate_limit',
            args: { roomId: v.roomId, messagesPerMinute: Number(v.messagesPerMinute) },
          })
        }
      >
        <SelectInput source="roomId" label="Room" choices={choices(ROOMS)} />
        <NumberInput source="messagesPerMinute" label="Messages per minute (1 to 600)" />
      </CommandForm>
    </Box>
  );
};
