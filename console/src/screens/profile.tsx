import { Box, Chip, Stack, Typography } from '@mui/material';
import { Title } from 'react-admin';
import { useSession } from '../ui';

/** The signed-in admin: name, roles and the permissions every screen is shown by. */
export const ProfilePage = () => {
  const me = useSession();
  if (!me) return null;
  return (
    <Box sx={{ p: 2 }}>
      <Title title="My account" />
      <Typography variant="h5" component="h1">
        {me.username ?? me.email} <small>#{me.id}</small>
      </Typography>
      <Typography>{me.email}</Typography>
      <Typography variant="h6" component="h2" sx={{ mt: 2 }}>
        Roles
      </Typography>
      <Stack direction="row" spacing={1}>
        {me.roles.map((r) => (
          <Chip key={r} label={r} color="primary" />
        ))}
      </Stack>
      <Typography variant="h6" component="h2" sx={{ mt: 2 }}>
        Permissions
      </Typography>
      {me.roles.includes('SuperAdmin') ? <Typography>Every permission (SuperAdmin).</Typography> : null}
      <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', gap: 1 }}>
        {me.permissions.map((p) => (
          <Chip key={p} label={p} />
        ))}
      </Stack>
    </Box>
  );
};
